import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { bundleWorkflowCode, type NativeConnection, Worker } from '@temporalio/worker';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActivities, type LoomActivities } from '../activities/index.js';
import { localHostId } from '../activities/hosts/host-id.js';
import { startSession } from '../client/services/sessions.js';
import { openSessionStore } from '../activities/store/open.js';
import { SqliteSessionStore } from '../activities/store/sqlite/store.js';
import type { SessionStore } from '../activities/store/store.js';
import { DEFAULT_MAX_PROMPT_BYTES } from '../core/records/prompt.js';
import { hostTaskQueue } from '../core/runs/workspace.js';
import type { SessionRunResult } from '../core/runs/run.js';
import { benchActivities } from './bench-activities.js';
import { startScriptedModel, type ScriptedModel } from '../testkit/model/scripted-model.js';
import { PROJECT_ROOT } from '../worker/bundle.js';
import { installQuietRuntime } from '../worker/runtime.js';
import { startMeasuringTemporal, type MeasuringTemporal } from '../testkit/temporal/measuring-temporal.js';

export const BENCH_MODEL = 'scripted/bench';

export type StoreName = 'SQLite' | 'PostgreSQL';

/** A Temporal server, a worker running Loom's and the bench's workflows, a store and a scripted model. */
export interface BenchEnv {
  temporal: MeasuringTemporal;
  client: Client;
  worker: Worker;
  /** The worker's Loom activities, for the in-process loop to call directly. */
  activities: LoomActivities;
  store: SessionStore;
  /** Which store the worker's activities write to: benchmarks that run on both put it in their row names. */
  storeName: StoreName;
  model: ScriptedModel;
  taskQueue: string;
  /** The project folder the sessions' tools work in. */
  project: string;
  /** What activities and `loom` processes need: data dir, config with the scripted provider. */
  processEnv: NodeJS.ProcessEnv;
  /** The bundle of bench/workflows.ts, for a bench worker in a process of its own. */
  workflowCodePath: string;
  /** Starts a session as `loom run` does, on the bench's task queue unless told another. */
  startSession(
    prompt: string,
    options?: { taskQueue?: string },
  ): Promise<{ sessionId: string; result: () => Promise<SessionRunResult> }>;
  /** Bytes and events of workflow history over every run of a workflow id. */
  history(workflowId: string): Promise<{ bytes: number; events: number; runs: number }>;
  /**
   * The same server, project and model, with a second worker on its own task queue whose
   * activities use the PostgreSQL store at `storeUrl`. Closing it stops that worker and closes
   * that store only.
   */
  withPostgres(storeUrl: string): Promise<BenchEnv>;
  close(): Promise<void>;
}

/** Files the bench sessions' tools look at. */
const PROJECT_FILES: Record<string, string> = {
  'README.md': '# Bench project\n',
  'src/a.ts': 'export const a = 1;\n',
  'src/b.ts': 'export const b = 2;\n',
  'notes/1k.txt': fileOf(1024),
  'notes/20k.txt': fileOf(20 * 1024),
};

/** About `bytes` of text in 64-character lines. */
function fileOf(bytes: number): string {
  return Array.from(
    { length: Math.ceil(bytes / 64) },
    (_, i) => `line ${String(i).padStart(5, '0')} ${'x'.repeat(52)}`,
  ).join('\n');
}

/** What every worker of one bench run shares. */
interface Shared {
  temporal: MeasuringTemporal;
  connection: NativeConnection;
  code: string;
  codePath: string;
  model: ScriptedModel;
  root: string;
  project: string;
}

/** `report` hears which Temporal the bench uses and what it did to the namespace. */
export async function createBenchEnv(report: (line: string) => void): Promise<BenchEnv> {
  installQuietRuntime('ERROR');
  const temporal = await startMeasuringTemporal(report);
  report(`temporal server: ${temporal.address}, namespace ${temporal.namespace} (${temporal.source})`);
  const root = mkdtempSync(join(tmpdir(), 'loom-bench-'));
  const project = join(root, 'project');
  for (const [path, content] of Object.entries(PROJECT_FILES)) {
    mkdirSync(join(project, path, '..'), { recursive: true });
    writeFileSync(join(project, path), content);
  }
  let model: ScriptedModel | undefined;
  let code: string;
  let connection: NativeConnection;
  try {
    model = await startScriptedModel([{ reply: { text: 'done' } }]);
    ({ code } = await bundleWorkflowCode({
      workflowsPath: join(PROJECT_ROOT, 'bench', 'workflows.ts'),
      logger: quiet,
    }));
    // A named server may refuse the worker's credentials: the message then says which setting.
    connection = await temporal.connectWorker();
  } catch (error) {
    await model?.close();
    await temporal.close();
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const codePath = join(root, 'bench-workflows.js');
  writeFileSync(codePath, code);
  const shared: Shared = { temporal, connection, code, codePath, model, root, project };
  const store = new SqliteSessionStore(join(root, 'data', 'loom.db'));
  return bindWorker(
    shared,
    { storeName: 'SQLite', store, taskQueue: temporal.taskQueue, dataDir: join(root, 'data') },
    async () => {
      await connection.close();
      await model.close();
      await temporal.close();
      rmSync(root, { recursive: true, force: true });
    },
  );
}

/** A worker on `taskQueue` whose activities use `store`; `close` stops it, closes the store, then `closeShared`. */
async function bindWorker(
  shared: Shared,
  binding: { storeName: StoreName; store: SessionStore; taskQueue: string; dataDir: string; storeUrl?: string },
  closeShared: () => Promise<void>,
): Promise<BenchEnv> {
  const { temporal, connection, code, codePath, model, root, project } = shared;
  const { storeName, store, taskQueue, dataDir } = binding;
  const client = temporal.client;
  const processEnv: NodeJS.ProcessEnv = {
    ...process.env,
    LOOM_DATA_DIR: dataDir,
    LOOM_CONFIG_DIR: join(root, 'config'),
    LOOM_CONFIG_CONTENT: JSON.stringify({
      auto_title: false,
      max_concurrent_subagents: 50,
      provider: { scripted: { options: { baseURL: model.url, apiKey: 'bench' } } },
    }),
    // The dev server's address, or nothing: the user's own TEMPORAL_* settings name the server.
    ...temporal.processEnv,
    LOOM_TASK_QUEUE: taskQueue,
    ...(binding.storeUrl ? { LOOM_STORE_URL: binding.storeUrl } : {}),
  };
  // As `loom worker` does: the shared queue, and this host's queue for the workspace tools.
  const hostId = localHostId(processEnv);
  const activities = createActivities({ store, env: processEnv, dataDir, hostId });
  let worker: Worker;
  let hostWorker: Worker;
  try {
    worker = await Worker.create({
      connection,
      namespace: temporal.namespace,
      taskQueue,
      workflowBundle: { code },
      activities: { ...activities, ...benchActivities },
      maxHeartbeatThrottleInterval: '1 second',
    });
    hostWorker = await Worker.create({
      connection,
      namespace: temporal.namespace,
      taskQueue: hostTaskQueue(taskQueue, hostId),
      activities,
      maxHeartbeatThrottleInterval: '1 second',
    });
  } catch (error) {
    await store.close();
    await closeShared();
    throw error;
  }
  const running = Promise.all([worker.run(), hostWorker.run()]);
  return {
    temporal,
    client,
    worker,
    activities,
    store,
    storeName,
    model,
    taskQueue,
    project,
    processEnv,
    workflowCodePath: codePath,
    async startSession(prompt, options = {}) {
      const { sessionId, handle } = await startSession(client, store, {
        prompt,
        maxPromptBytes: DEFAULT_MAX_PROMPT_BYTES,
        agent: 'build',
        model: BENCH_MODEL,
        directory: project,
        host: hostId,
        taskQueue: options.taskQueue ?? taskQueue,
        ...(temporal.searchAttributes ? {} : { searchAttributes: false }),
      });
      return { sessionId, result: () => handle.result() };
    },
    async history(workflowId) {
      let bytes = 0;
      let events = 0;
      let runs = 0;
      for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
        const history = await client.workflow.getHandle(workflowId, run.runId).fetchHistory();
        bytes += proto.temporal.api.history.v1.History.encode(history).finish().length;
        events += history.events?.length ?? 0;
        runs++;
      }
      return { bytes, events, runs };
    },
    async withPostgres(storeUrl) {
      const dataDir = join(root, 'data-postgres');
      const postgres = await openSessionStore({ dataDir, storeUrl });
      return bindWorker(
        shared,
        { storeName: 'PostgreSQL', store: postgres, taskQueue: `${taskQueue}-postgres`, dataDir, storeUrl },
        async () => undefined,
      );
    },
    async close() {
      try {
        worker.shutdown();
        hostWorker.shutdown();
        await running;
      } finally {
        await store.close();
        await closeShared();
      }
    },
  };
}

const quiet = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (m: string) => console.error(m),
};
