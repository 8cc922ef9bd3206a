import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActivities } from '../activities/index.js';
import { SqliteSessionStore } from '../activities/store/sqlite.js';
import { startScriptedModel, type ScriptedModel } from '../test/support/scripted-model.js';
import { startTemporalServer } from '../test/support/temporal-server.js';
import { PROJECT_ROOT } from '../worker/bundle.js';
import { installQuietRuntime } from '../worker/runtime.js';

/** A dev server, a worker running Loom's and the bench's workflows, a store and a scripted model. */
export interface BenchEnv {
  env: TestWorkflowEnvironment;
  worker: Worker;
  store: SqliteSessionStore;
  model: ScriptedModel;
  taskQueue: string;
  project: string;
  close(): Promise<void>;
}

export async function createBenchEnv(): Promise<BenchEnv> {
  installQuietRuntime('ERROR');
  const env = await startTemporalServer();
  const root = mkdtempSync(join(tmpdir(), 'loom-bench-'));
  const model = await startScriptedModel([{ reply: { text: 'done' } }]);
  const store = new SqliteSessionStore(join(root, 'loom.db'));
  const taskQueue = 'bench';
  const processEnv = {
    ...process.env,
    LOOM_DATA_DIR: root,
    LOOM_CONFIG_DIR: join(root, 'config'),
    LOOM_CONFIG_CONTENT: JSON.stringify({ provider: { scripted: { options: { baseURL: model.url, apiKey: 'bench' } } } }),
  };
  const { code } = await bundleWorkflowCode({ workflowsPath: join(PROJECT_ROOT, 'bench', 'workflows.ts'), logger: quiet });
  const connection = await NativeConnection.connect({ address: env.address });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: { code },
    activities: createActivities({ store, env: processEnv, dataDir: root }),
    maxHeartbeatThrottleInterval: '1 second',
  });
  const running = worker.run();
  return {
    env,
    worker,
    store,
    model,
    taskQueue,
    project: root,
    async close() {
      worker.shutdown();
      await running;
      await connection.close();
      await model.close();
      await store.close();
      await env.teardown();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: (m: string) => console.error(m) };
