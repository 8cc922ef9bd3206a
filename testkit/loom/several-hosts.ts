import { Client, Connection } from '@temporalio/client';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inject } from 'vitest';
import { PostgresSessionStore } from '../../activities/store/postgres/store.js';
import { newId } from '../../core/records/ids.js';
import type { ToolPart } from '../../core/records/part.js';
import { runLoom, type LoomResult } from './run-loom.js';
import { startTestPostgres, type TestPostgres } from '../store/postgres-server.js';
import { startScriptedModel, type ScriptedModel } from '../model/scripted-model.js';
import { startWorkerProcess, stopProcess, type WorkerProcess } from './worker-process.js';

/** One pretend machine: its host id, its own workspace and data folders, and the env of its processes. */
export interface Machine {
  host: string;
  workspace: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Several "machines" on one box: one Temporal server (the run's dev server), one PostgreSQL
 * database, one scripted model and one task queue, shared by `loom worker` processes that differ
 * only in their host id and folders.
 */
export interface SeveralHosts {
  client: Client;
  taskQueue: string;
  storeUrl: string;
  store: PostgresSessionStore;
  model: ScriptedModel;
  machine(host: string): Machine;
  /** Starts `loom worker` as that machine; stopped (SIGKILL) by `close()` if still running. */
  startWorker(host: string): Promise<WorkerProcess>;
  /**
   * Starts one worker of each host, by host id: one after another, as several at once on a busy
   * machine (the other several-hosts file starts its own) can each take longer than the start allows.
   */
  startWorkers(hosts: string[]): Promise<Record<string, WorkerProcess>>;
  /** Runs the `loom` CLI as that machine, in its workspace. */
  loom(host: string, args: string[]): Promise<LoomResult>;
  close(): Promise<void>;
}

export async function startSeveralHosts(options: {
  hosts: string[];
  /** Files of each host's workspace, by host id. */
  files?: Record<string, Record<string, string>>;
  config?: Record<string, unknown>;
}): Promise<SeveralHosts> {
  const address = inject('temporalAddress');
  const root = mkdtempSync(join(tmpdir(), 'loom-hosts-'));
  const postgres: TestPostgres = await startTestPostgres();
  const storeUrl = await postgres.createDatabase();
  const store = await PostgresSessionStore.open(storeUrl);
  const model = await startScriptedModel();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const taskQueue = `hosts-${newId('ses', Date.now(), Math.random).slice(4)}`;
  const common: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '1',
    TEMPORAL_ADDRESS: address,
    LOOM_TASK_QUEUE: taskQueue,
    LOOM_STORE_URL: storeUrl,
    LOOM_CONFIG_CONTENT: JSON.stringify({
      auto_title: false,
      ...options.config,
      provider: { scripted: { options: { baseURL: model.url, apiKey: 'test' } } },
    }),
  };
  const machines = new Map<string, Machine>();
  for (const host of options.hosts) {
    const workspace = join(root, host, 'workspace');
    mkdirSync(workspace, { recursive: true });
    for (const [path, content] of Object.entries(options.files?.[host] ?? {})) {
      mkdirSync(dirname(join(workspace, path)), { recursive: true });
      writeFileSync(join(workspace, path), content);
    }
    machines.set(host, {
      host,
      workspace,
      env: {
        ...common,
        LOOM_HOST_ID: host,
        LOOM_DATA_DIR: join(root, host, 'data'),
        LOOM_CONFIG_DIR: join(root, host, 'config'),
      },
    });
  }
  const machine = (host: string) => {
    const found = machines.get(host);
    if (!found) throw new Error(`No machine "${host}" in this test (${[...machines.keys()].join(', ')})`);
    return found;
  };
  const workers: WorkerProcess[] = [];
  const startWorker = async (host: string) => {
    const { env, workspace } = machine(host);
    const worker = await startWorkerProcess(env, { cwd: workspace });
    workers.push(worker);
    return worker;
  };

  return {
    client,
    taskQueue,
    storeUrl,
    store,
    model,
    machine,
    startWorker,
    async startWorkers(hosts) {
      const started: Record<string, WorkerProcess> = {};
      for (const host of hosts) started[host] = await startWorker(host);
      return started;
    },
    loom: (host, args) => runLoom(args, { env: machine(host).env, cwd: machine(host).workspace }),
    async close() {
      await Promise.all(workers.map((worker) => stopProcess(worker, 'SIGKILL')));
      await model.close();
      await store.close();
      await connection.close();
      await postgres.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** What a tool call printed, or the error it ended with. */
export const toolOutput = (part: ToolPart) =>
  part.state.status === 'completed' ? part.state.output : part.state.status === 'error' ? part.state.error : '';

/** The `$PPID`s that bash calls printed (`pid 123 …`): the worker process that ran each call. */
export const printedPids = (parts: ToolPart[]) =>
  parts.flatMap((part) =>
    part.tool === 'bash' ? [...toolOutput(part).matchAll(/pid (\d+)/g)].map((m) => Number(m[1])) : [],
  );

/** The worker identities (`loom@<machine>:<pid>`) that ran a session's activities of one type, from its history. */
export async function activityWorkers(client: Client, sessionId: string, activity: string): Promise<string[]> {
  const history = await client.workflow.getHandle(sessionId).fetchHistory();
  const scheduled = new Map<string, { type: string; queue: string }>();
  const identities: string[] = [];
  for (const event of history.events ?? []) {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes)
      scheduled.set(String(event.eventId), {
        type: attributes.activityType?.name ?? '',
        queue: attributes.taskQueue?.name ?? '',
      });
    const started = event.activityTaskStartedEventAttributes;
    if (started && scheduled.get(String(started.scheduledEventId))?.type === activity)
      identities.push(started.identity ?? '');
  }
  return identities;
}

/** The process id in a worker identity. */
export const pidOf = (identity: string) => Number(/:(\d+)$/.exec(identity)?.[1]);
