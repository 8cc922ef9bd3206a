import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { storeFile } from '../activities/process/paths.js';
import { SqliteSessionStore } from '../activities/store/sqlite/store.js';
import type { MessageRecords } from '../activities/store/messages.js';
import type { BatchRecords } from '../activities/store/batches.js';
import type { SessionRecords } from '../activities/store/sessions.js';
import type { BatchTaskInput } from '../core/batch/batch.js';
import { LOOM_BIN, startWorkerProcess, stopProcess } from '../testkit/loom/worker-process.js';
import { runCheck } from './check.js';
import type { RunResult } from './result.js';
import type { TaskRun } from './workspaces.js';

const WATCH_MS = 5_000;

export interface LoomEvalOptions {
  /** `provider/model`. */
  model: string;
  /** How the table names this model's column (default: the model). */
  label?: string;
  /** Configuration layered over the user's: the local provider, the eval's permissions. */
  config: Record<string, unknown>;
  /** The batch's folder: every run's folder is inside it. */
  batchFolder: string;
  /** Where this Loom keeps its store and logs, apart from the user's. */
  dataFolder: string;
  runs: TaskRun[];
  /** `TEMPORAL_ADDRESS` and the like. */
  temporalEnv: NodeJS.ProcessEnv;
  /** A task running longer is cancelled, and fails. */
  taskTimeoutMs: number;
  log(line: string): void;
}

/**
 * Runs every task as one durable batch of `loom batch run`, served by a `loom worker`, the way a
 * person would; then judges each task's folder with its check.
 */
export async function runLoomEval(options: LoomEvalOptions): Promise<RunResult[]> {
  mkdirSync(options.dataFolder, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.temporalEnv,
    LOOM_DATA_DIR: options.dataFolder,
    LOOM_CONFIG_CONTENT: JSON.stringify(options.config),
    LOOM_STORE_URL: '',
    NO_COLOR: '1',
  };
  const tasksFile = join(options.dataFolder, 'tasks.jsonl');
  const lines = options.runs.map((run): BatchTaskInput => ({
    description: `${run.task.id} #${run.attempt}`,
    prompt: run.task.prompt,
    directory: run.folder,
  }));
  writeFileSync(tasksFile, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');

  const worker = await startWorkerProcess(env, { cwd: options.batchFolder });
  const store = new SqliteSessionStore(storeFile(options.dataFolder));
  const timedOut = new Set<string>();
  try {
    const args = [
      LOOM_BIN,
      'batch',
      'run',
      tasksFile,
      '--json',
      '--agent',
      'build',
      '--model',
      options.model,
      '--concurrency',
      '1',
      '--retries',
      '0',
    ];
    const batch = spawn(process.execPath, args, { cwd: options.batchFolder, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    batch.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    batch.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => batch.once('exit', resolve));
    let code: number | null | undefined;
    void exited.then((value) => (code = value));
    while (code === undefined) {
      await Promise.race([sleep(WATCH_MS), exited]);
      await cancelOverdue(store, env, options, timedOut);
    }
    const batchId = /"batchId":"(bat_[^"]+)"/.exec(stdout)?.[1] ?? /Batch (bat_\S+):/.exec(stderr)?.[1];
    if (!batchId) throw new Error(`loom batch run exited with ${code} and named no batch:\n${stderr.slice(-3000)}`);
    return await judge(store, batchId, options, timedOut);
  } finally {
    await stopProcess(worker);
    await store.close();
  }
}

/** Cancels the session of a task that has run past the time limit (`loom cancel`, as a person would). */
async function cancelOverdue(
  store: BatchRecords & SessionRecords,
  env: NodeJS.ProcessEnv,
  options: LoomEvalOptions,
  timedOut: Set<string>,
): Promise<void> {
  const [batch] = await store.listBatches(1);
  if (!batch) return;
  for (const { outcome } of await store.batchTasks(batch.id)) {
    if (outcome.status !== 'running' || !outcome.sessionId || timedOut.has(outcome.sessionId)) continue;
    const session = await store.getSession(outcome.sessionId);
    if (!session || Date.now() - session.time.created < options.taskTimeoutMs) continue;
    timedOut.add(outcome.sessionId);
    options.log(`  ${outcome.sessionId} ran past ${options.taskTimeoutMs / 60_000} minutes: cancelling it`);
    spawn(process.execPath, [LOOM_BIN, 'cancel', outcome.sessionId], { env, stdio: 'ignore' });
  }
}

async function judge(
  store: BatchRecords & MessageRecords & SessionRecords,
  batchId: string,
  options: LoomEvalOptions,
  timedOut: Set<string>,
): Promise<RunResult[]> {
  const tasks = await store.batchTasks(batchId);
  const results: RunResult[] = [];
  for (const [index, run] of options.runs.entries()) {
    const { outcome } = tasks[index];
    const session = outcome.sessionId ? await store.getSession(outcome.sessionId) : undefined;
    const tools = outcome.sessionId ? await toolsOfTree(store, outcome.sessionId) : [];
    const answer = outcome.text ?? '';
    const folder = join(options.batchFolder, run.folder);
    const check = runCheck(run.task.check, folder, answer, tools);
    const status = outcome.sessionId && timedOut.has(outcome.sessionId) ? 'timed out' : outcome.status;
    results.push({
      agent: 'Loom',
      model: options.label ?? options.model,
      task: run.task.id,
      kind: run.task.kind,
      attempt: run.attempt,
      passed: check.passed,
      status,
      seconds: session ? (session.time.updated - session.time.created) / 1000 : 0,
      // Prompt tokens whether or not the server had them cached: what the model read.
      tokens: {
        input: (outcome.tokens?.input ?? 0) + (outcome.tokens?.cache.read ?? 0),
        output: outcome.tokens?.output ?? 0,
      },
      tools,
      answer,
      ...(outcome.error ? { error: outcome.error } : {}),
      ...(check.passed ? {} : { checkOutput: check.output }),
    });
  }
  return results;
}

/** The tools a session and its subagents called, in the order of their messages. */
async function toolsOfTree(store: MessageRecords & SessionRecords, sessionId: string): Promise<string[]> {
  const tools: string[] = [];
  for (const message of await store.messages(sessionId)) {
    for (const part of message.parts) if (part.type === 'tool') tools.push(part.tool);
  }
  for (const child of await store.children(sessionId)) tools.push(...(await toolsOfTree(store, child.id)));
  return tools;
}
