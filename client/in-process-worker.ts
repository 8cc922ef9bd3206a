import { showWorkerWarningsOn } from '../activities/process/worker-log.js';
import { createLoomWorker, type LoomWorkerOptions } from '../worker/create-worker.js';
import { installQuietRuntime } from '../worker/runtime.js';
import { connectWorker } from '../worker/connection/connect-worker.js';
import { errorMessage } from '../core/text/error-message.js';
import type { TemporalTarget } from '../worker/connection/target.js';
import { versioningFrom, type MakeCurrent } from '../worker/versioning/settings.js';
import { refuseBeforePolling, type VersionAdopted } from '../worker/versioning/adopt.js';
import { UnversionedRunsOpen } from '../worker/versioning/unversioned-runs.js';
import { InputError } from './input-error.js';

export interface RunningWorker {
  /** The task queues it polls, shared first. */
  queues: string[];
  /** Its build in the worker deployment (undefined: unversioned); `error` when it could not take its place. */
  version?: VersionAdopted | { error: string };
  stop(): Promise<void>;
}

/** The worker's options (see `LoomWorkerOptions`), with the Temporal service it connects to itself. */
export interface InProcessWorkerOptions extends Pick<
  LoomWorkerOptions,
  'taskQueue' | 'store' | 'env' | 'hostId' | 'serve' | 'maxCachedWorkflows'
> {
  target: TemporalTarget;
  /** When its build becomes current (default: always on the embedded dev server, else for a first version). */
  makeCurrent?: MakeCurrent;
}

/** A worker inside the CLI process, for as long as one command needs it. */
export async function startInProcessWorker(options: InProcessWorkerOptions): Promise<RunningWorker> {
  const { target, makeCurrent, ...shared } = options;
  const env = options.env ?? process.env;
  const versioning = versioningFrom(env, options.taskQueue, makeCurrent ?? (target.embedded ? 'always' : 'when-none'));
  // The CLI reports failures itself; the SDK's warnings about them would only repeat it.
  installQuietRuntime('ERROR');
  showWorkerWarningsOn((message) => process.stderr.write(`warning: ${message}\n`));
  const connection = await connectWorker(target);
  if (versioning && options.serve !== 'host') {
    // Any other failure here is the adoption's to report, once the worker polls.
    const refusal = await refuseBeforePolling(
      connection.workflowService,
      target.namespace,
      versioning,
      options.taskQueue,
    ).catch((error: unknown) => error);
    if (refusal instanceof UnversionedRunsOpen) {
      await connection.close();
      throw doesNotStart(refusal);
    }
  }
  const worker = await createLoomWorker({ ...shared, connection, namespace: target.namespace, versioning });
  const running = worker.run();
  const stop = async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
    await connection.close();
  };
  // Before a command starts its run: a run started while another build is current would go there.
  const version = await worker
    .versionAdopted()
    .catch((error: unknown) => (error instanceof UnversionedRunsOpen ? error : { error: errorMessage(error) }));
  if (version instanceof UnversionedRunsOpen) {
    // Open runs this build cannot replay: it neither becomes current nor serves runs of its own.
    await stop();
    throw doesNotStart(version);
  }
  return { queues: worker.queues, version, stop };
}

function doesNotStart(refusal: UnversionedRunsOpen): InputError {
  return new InputError(`This worker does not start: ${refusal.message}`);
}
