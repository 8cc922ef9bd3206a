import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActivities, type LoomActivities } from '../activities/index.js';
import { startSession } from '../client/sessions.js';
import { SqliteSessionStore } from '../activities/store/sqlite.js';
import { DEFAULT_MAX_PROMPT_BYTES } from '../core/prompt.js';
import type { SessionRunResult } from '../core/run.js';
import { startScriptedModel, type ScriptedModel } from '../test/support/scripted-model.js';
import { startTemporalServer } from '../test/support/temporal-server.js';
import { PROJECT_ROOT } from '../worker/bundle.js';
import { installQuietRuntime } from '../worker/runtime.js';

export const BENCH_MODEL = 'scripted/bench';

/** A dev server, a worker running Loom's and the bench's workflows, a store and a scripted model. */
export interface BenchEnv {
  env: TestWorkflowEnvironment;
  client: Client;
  worker: Worker;
  /** The worker's Loom activities, for the in-process loop to call directly. */
  activities: LoomActivities;
  store: SqliteSessionStore;
  model: ScriptedModel;
  taskQueue: string;
  /** The project folder the sessions' tools work in. */
  project: string;
  /** What activities and `loom` processes need: data dir, config with the scripted provider. */
  processEnv: NodeJS.ProcessEnv;
  /** Starts a session as `loom run` does, on the bench's task queue unless told another. */
  startSession(prompt: string, options?: { taskQueue?: string }): Promise<{ sessionId: string; result: () => Promise<SessionRunResult> }>;
  /** Bytes and events of workflow history over every run of a workflow id. */
  history(workflowId: string): Promise<{ bytes: number; events: number; runs: number }>;
  close(): Promise<void>;
}

export type BenchActivities = { noopActivity(): Promise<void> };

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
  return Array.from({ length: Math.ceil(bytes / 64) }, (_, i) => `line ${String(i).padStart(5, '0')} ${'x'.repeat(52)}`).join('\n');
}

export async function createBenchEnv(): Promise<BenchEnv> {
  installQuietRuntime('ERROR');
  const env = await startTemporalServer();
  const root = mkdtempSync(join(tmpdir(), 'loom-bench-'));
  const project = join(root, 'project');
  for (const [path, content] of Object.entries(PROJECT_FILES)) {
    mkdirSync(join(project, path, '..'), { recursive: true });
    writeFileSync(join(project, path), content);
  }
  const model = await startScriptedModel([{ reply: { text: 'done' } }]);
  const store = new SqliteSessionStore(join(root, 'data', 'loom.db'));
  const taskQueue = 'bench';
  const processEnv: NodeJS.ProcessEnv = {
    ...process.env,
    LOOM_DATA_DIR: join(root, 'data'),
    LOOM_CONFIG_DIR: join(root, 'config'),
    LOOM_CONFIG_CONTENT: JSON.stringify({
      auto_title: false,
      max_concurrent_subagents: 50,
      provider: { scripted: { options: { baseURL: model.url, apiKey: 'bench' } } },
    }),
    TEMPORAL_ADDRESS: env.address,
    LOOM_TASK_QUEUE: taskQueue,
  };
  const { code } = await bundleWorkflowCode({ workflowsPath: join(PROJECT_ROOT, 'bench', 'workflows.ts'), logger: quiet });
  const connection = await NativeConnection.connect({ address: env.address });
  const activities = createActivities({ store, env: processEnv, dataDir: join(root, 'data') });
  const benchActivities: BenchActivities = { noopActivity: async () => undefined };
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: { code },
    activities: { ...activities, ...benchActivities },
    maxHeartbeatThrottleInterval: '1 second',
  });
  const running = worker.run();
  const client = env.client;
  return {
    env,
    client,
    worker,
    activities,
    store,
    model,
    taskQueue,
    project,
    processEnv,
    async startSession(prompt, options = {}) {
      const { sessionId, handle } = await startSession(client, store, {
        prompt,
        maxPromptBytes: DEFAULT_MAX_PROMPT_BYTES,
        agent: 'build',
        model: BENCH_MODEL,
        directory: project,
        taskQueue: options.taskQueue ?? taskQueue,
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
