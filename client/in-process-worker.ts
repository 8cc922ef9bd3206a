import type { SessionStore } from '../activities/store/store.js';
import { showWorkerWarningsOn } from '../activities/worker-log.js';
import { createLoomWorker, type ServedQueues } from '../worker/create-worker.js';
import { installQuietRuntime } from '../worker/runtime.js';
import { connectWorker } from '../worker/temporal/connect-worker.js';
import type { TemporalTarget } from '../worker/temporal/target.js';

export interface RunningWorker {
  /** The task queues it polls, shared first. */
  queues: string[];
  stop(): Promise<void>;
}

/** A worker inside the CLI process, for as long as one command needs it. */
export async function startInProcessWorker(options: {
  target: TemporalTarget;
  taskQueue: string;
  store: SessionStore;
  env?: NodeJS.ProcessEnv;
  hostId?: string;
  serve?: ServedQueues;
  maxCachedWorkflows?: number;
}): Promise<RunningWorker> {
  // The CLI reports failures itself; the SDK's warnings about them would only repeat it.
  installQuietRuntime('ERROR');
  showWorkerWarningsOn((message) => process.stderr.write(`warning: ${message}\n`));
  const connection = await connectWorker(options.target);
  const worker = await createLoomWorker({
    connection,
    namespace: options.target.namespace,
    taskQueue: options.taskQueue,
    store: options.store,
    env: options.env,
    hostId: options.hostId,
    serve: options.serve,
    maxCachedWorkflows: options.maxCachedWorkflows,
  });
  const running = worker.run();
  return {
    queues: worker.queues,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
    },
  };
}
