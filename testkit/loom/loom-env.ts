import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inject } from 'vitest';
import type { SessionStore } from '../../activities/store/store.js';
import { newId } from '../../core/records/ids.js';
import { RootSessionAttribute } from '../../core/runs/search-attributes.js';
import type { SessionRunInput, SessionRunResult } from '../../core/runs/run.js';
import { sessionWorkflow } from '../../workflows/index.js';
import { PROJECT_ROOT, workflowBundlePath } from '../../worker/bundle.js';
import { localHostId } from '../../activities/hosts/host-id.js';
import { createLoomWorker, type LoomWorker, type LoomWorkerOptions } from '../../worker/create-worker.js';
import { installQuietRuntime } from '../../worker/runtime.js';
import { freePort } from '../network/free-port.js';
import { runLoom, spawnLoom, type LoomOptions, type LoomResult } from './run-loom.js';
import { startScriptedModel, type ScriptedModel } from '../model/scripted-model.js';
import type { ScriptRule } from '../model/scripted-model-script.js';
import { openTestStore } from '../store/test-store.js';

export const SCRIPTED_MODEL = 'scripted/test-model';
export const HISTORIES_DIR = join(PROJECT_ROOT, 'test', 'replay', 'histories');

installQuietRuntime('ERROR');

export interface LoomTestEnv {
  client: Client;
  nativeConnection: NativeConnection;
  taskQueue: string;
  dataDir: string;
  project: string;
  /** SQLite in `dataDir`, or a database of its own on PostgreSQL with `LOOM_TEST_STORE=postgres`. */
  store: SessionStore;
  model: ScriptedModel;
  /** Environment for activities and CLI processes: data dir, scripted provider config, no colours. */
  env: NodeJS.ProcessEnv;
  /** The `loom` CLI in its own process, in the project folder, with `env` and then `options.env`. */
  loom(args: string[], options?: Partial<LoomOptions>): Promise<LoomResult>;
  /** `loom` as it runs, for a test that reads its output or signals it before it ends. */
  spawnLoom(args: string[], options?: Partial<LoomOptions>): ReturnType<typeof spawnLoom>;
  worker(
    options?: Pick<
      LoomWorkerOptions,
      | 'maxCachedWorkflows'
      | 'maxConcurrentActivityTaskExecutions'
      | 'hostId'
      | 'serve'
      | 'env'
      | 'versioning'
      | 'workflowCodePath'
    >,
  ): Promise<LoomWorker>;
  start(
    prompt: string,
    input?: Partial<SessionRunInput>,
  ): Promise<{ sessionId: string; result: () => Promise<SessionRunResult> }>;
  /**
   * Replays the session's latest run from its recorded history with today's workflow code; with
   * `LOOM_RECORD_HISTORIES=1` also saves it as a fixture for `test/replay/`.
   */
  checkReplay(sessionId: string, fixtureName?: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real dev server (from the global setup), a store (see `test-store.ts`) and a project folder in a temp dir,
 * and the scripted model answering on a real port. One per test file.
 */
export async function createLoomTestEnv(
  options: {
    files?: Record<string, string>;
    rules?: ScriptRule[];
    address?: string;
    config?: Record<string, unknown>;
    /** More providers for loom.json, given the scripted server's address (it speaks several protocols). */
    providers?: (modelUrl: string) => Record<string, unknown>;
    /** The folder the test's own folder is made in (default: the system's temporary folder). */
    parent?: string;
  } = {},
): Promise<LoomTestEnv> {
  const address = options.address ?? inject('temporalAddress');
  const root = mkdtempSync(join(options.parent ?? tmpdir(), 'loom-test-'));
  const dataDir = join(root, 'data');
  const project = join(root, 'project');
  mkdirSync(project, { recursive: true });
  for (const [path, content] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(project, path)), { recursive: true });
    writeFileSync(join(project, path), content);
  }
  const model = await startScriptedModel(options.rules ?? []);
  const testStore = await openTestStore(dataDir);
  const store = testStore.store;
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  const client = new Client({ connection });
  const taskQueue = `test-${newId('ses', Date.now(), Math.random).slice(4)}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // picocolors colours output whenever CI is set, as it is in CI; tests read plain text.
    NO_COLOR: '1',
    LOOM_DATA_DIR: dataDir,
    LOOM_CONFIG_DIR: join(root, 'config'),
    LOOM_CONFIG_CONTENT: JSON.stringify({
      // Titles are extra model calls; the tests that want them turn them on.
      auto_title: false,
      ...options.config,
      provider: {
        scripted: {
          options: { baseURL: model.url, apiKey: 'test' },
          // A model with a small window, for tests of compaction.
          models: { tiny: { limit: { context: 3000, output: 500 } } },
        },
        dead: { options: { baseURL: `http://127.0.0.1:${await freePort()}/v1`, apiKey: 'test' } },
        ...options.providers?.(model.url),
      },
    }),
    TEMPORAL_ADDRESS: address,
    LOOM_TASK_QUEUE: taskQueue,
    // Every test has a task queue, so each would have a worker deployment: more than the 100 a
    // namespace holds. Tests of versioning turn it on for their own workers.
    LOOM_WORKER_VERSIONING: 'off',
    ...testStore.env,
  };
  const workers: { worker: LoomWorker; running: Promise<void> }[] = [];
  const loomOptions = (given: Partial<LoomOptions>): LoomOptions => ({
    cwd: project,
    ...given,
    env: { ...env, ...given.env },
  });

  return {
    client,
    nativeConnection,
    taskQueue,
    dataDir,
    project,
    store,
    model,
    env,
    loom: (args, options = {}) => runLoom(args, loomOptions(options)),
    spawnLoom: (args, options = {}) => spawnLoom(args, loomOptions(options)),
    async worker(workerOptions = {}) {
      const worker = await createLoomWorker({
        connection: nativeConnection,
        namespace: 'default',
        taskQueue,
        store,
        env,
        ...workerOptions,
      });
      workers.push({ worker, running: worker.run() });
      return worker;
    },
    async start(prompt, input = {}) {
      const sessionId = input.sessionId ?? newId('ses', Date.now(), Math.random);
      // As the CLI does: the prompt goes to the store, the run gets its id.
      const promptId = prompt ? newId('prm', Date.now(), Math.random) : undefined;
      if (promptId)
        await store.savePrompt({ id: promptId, sessionID: sessionId, text: prompt, time: { created: Date.now() } });
      const handle = await client.workflow.start(sessionWorkflow, {
        workflowId: sessionId,
        taskQueue,
        typedSearchAttributes: [{ key: RootSessionAttribute, value: sessionId }],
        args: [
          {
            sessionId,
            directory: project,
            host: localHostId(env),
            agent: 'build',
            model: SCRIPTED_MODEL,
            promptId,
            modelRetry: { maximumAttempts: 3, initialIntervalMs: 100, maximumIntervalMs: 500 },
            // A person starts it, as through the CLI (see activities/config/trust.ts).
            byPerson: true,
            ...input,
          },
        ],
      });
      return { sessionId, result: () => handle.result() };
    },
    async checkReplay(sessionId, fixtureName) {
      const history = await client.workflow.getHandle(sessionId).fetchHistory();
      if (process.env.LOOM_DEBUG_HISTORY) writeFileSync(process.env.LOOM_DEBUG_HISTORY, historyToJSON(history));
      await Worker.runReplayHistory({ workflowBundle: { codePath: await workflowBundlePath() } }, history, sessionId);
      if (fixtureName && process.env.LOOM_RECORD_HISTORIES) {
        mkdirSync(HISTORIES_DIR, { recursive: true });
        writeFileSync(join(HISTORIES_DIR, `${fixtureName}.json`), historyToJSON(history));
      }
    },
    async close() {
      for (const { worker } of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
      await Promise.allSettled(workers.map(({ running }) => running));
      await model.close();
      await testStore.close();
      await connection.close();
      await nativeConnection.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
