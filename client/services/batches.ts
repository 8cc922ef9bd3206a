import type { Budget } from '../../core/runs/budget.js';
import type { BudgetRecords } from '../../activities/store/budgets.js';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { localHostId } from '../../activities/hosts/host-id.js';
import type { BatchRecords } from '../../activities/store/batches.js';
import { BatchTaskInput, type BatchProgress, type BatchRecord, type BatchTaskOutcome } from '../../core/batch/batch.js';
import type { Tokens } from '../../core/records/message.js';
import { answerSummary } from '../../core/text/answer-summary.js';
import { newId } from '../../core/records/ids.js';
import { escapeMarkdownInline } from '../../core/text/markdown-escape.js';
import type { ModelRetry } from '../../core/runs/run.js';
import { batchControlPriority } from '../../core/runs/task-priority.js';
import { batchControlUpdate, type BatchControl } from '../../workflows/api.js';
import { batchWorkflow, type BatchRunInput } from '../../workflows/batch.js';
import { checkTaskDirectories } from './batch-directories.js';
import { InputError } from '../input-error.js';
import { formatBytes } from '../render/quantities.js';
import { promptSizeProblem } from './sent-prompts.js';
import { batchPageUrl, webLinkDetails } from '../../core/runs/web-links.js';
import { plural } from '../render/quantities.js';

export type BatchHandle = WorkflowHandle<typeof batchWorkflow>;

/**
 * Reads a JSONL batch file; any bad line (not JSON, a missing field, a prompt over `maxPromptBytes`)
 * is reported with its number and what is wrong.
 */
export function readBatchFile(path: string, maxPromptBytes: number): { tasks: BatchTaskInput[]; bytes: number } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  const tasks: BatchTaskInput[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((line, index) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      problems.push(`${path}:${index + 1}: not JSON (${(error as Error).message})`);
      return;
    }
    const parsed = BatchTaskInput.safeParse(value);
    const tooLarge = parsed.success ? promptSizeProblem(parsed.data.prompt, maxPromptBytes) : undefined;
    if (tooLarge) problems.push(`${path}:${index + 1}: ${tooLarge}`);
    else if (parsed.success) tasks.push(parsed.data);
    else
      problems.push(
        `${path}:${index + 1}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'task'}: ${issue.message}`).join('; ')}`,
      );
  });
  if (problems.length)
    throw new InputError(`${plural(problems.length, 'bad line')} in ${path}:\n${problems.slice(0, 20).join('\n')}`);
  if (tasks.length === 0)
    throw new InputError(`${path} has no tasks: write one JSON object per line, {"description": …, "prompt": …}.`);
  return { tasks, bytes: statSync(path).size };
}

export interface StartBatchOptions {
  tasks: BatchTaskInput[];
  source: string;
  sourceBytes: number;
  directory: string;
  /** The host id of the machine that holds `directory` (default: this machine's). */
  host?: string;
  agent: string;
  model?: string;
  concurrency: number;
  retries: number;
  taskQueue: string;
  modelRetry?: ModelRetry;
  /** Where `loom serve`'s web view is, for links from the Temporal UI. */
  webUrl?: string;
  /** `false`: the namespace lacks Loom's search attributes, so runs carry none (see `checkSearchAttributes`). */
  searchAttributes?: boolean;
  /** Each task works in a copy of the project taken when the batch starts (`loom batch run --isolate`). */
  isolate?: boolean;
  /** What all the tasks together may spend (`--max-tokens`, `--max-cost`). */
  budget?: Budget;
  /** What each task's session and its subagents may spend (`--task-max-tokens`, `--task-max-cost`). */
  taskBudget?: Budget;
  /** Milliseconds each task's run may take, for tasks that set no `timeout` (`--task-timeout`). */
  taskTimeout?: number;
  /** Events of history after which a run of the batch continues as new (tests lower the default). */
  continueAtEvents?: number;
}

/**
 * Stores a batch's tasks, then starts its run: a `batchWorkflow` whose workflow id is the batch id.
 * Tasks' folders are checked first when the batch runs on this machine.
 */
export async function startBatch(
  client: Client,
  store: BatchRecords & Pick<BudgetRecords, 'setBudget'>,
  options: StartBatchOptions,
): Promise<{ batch: BatchRecord; handle: BatchHandle }> {
  if (options.host === undefined || options.host === localHostId())
    checkTaskDirectories(options.directory, options.tasks);
  const now = Date.now();
  const host = options.host ?? localHostId();
  const batch: BatchRecord = {
    id: newId('bat', now, Math.random),
    source: options.source,
    sourceBytes: options.sourceBytes,
    total: options.tasks.length,
    directory: options.directory,
    host,
    agent: options.agent,
    model: options.model,
    concurrency: options.concurrency,
    retries: options.retries,
    ...(options.isolate ? { isolation: {} } : {}),
    ...(options.taskTimeout ? { taskTimeout: options.taskTimeout } : {}),
    status: 'running',
    time: { created: now, updated: now },
  };
  await store.createBatch(batch, options.tasks);
  if (options.budget) await store.setBudget(batch.id, options.budget);
  const input: BatchRunInput = {
    batchId: batch.id,
    directory: options.directory,
    host,
    total: batch.total,
    concurrency: options.concurrency,
    retries: options.retries,
    modelRetry: options.modelRetry,
    ...(options.webUrl ? { webUrl: options.webUrl } : {}),
    searchAttributes: options.searchAttributes === false ? false : undefined,
    ...(options.isolate ? { isolate: true } : {}),
    ...(options.taskBudget ? { taskBudget: options.taskBudget } : {}),
    ...(options.continueAtEvents ? { continueAtEvents: options.continueAtEvents } : {}),
  };
  const handle = await client.workflow.start(batchWorkflow, {
    workflowId: batch.id,
    taskQueue: options.taskQueue,
    args: [input],
    staticSummary: `batch · ${escapeMarkdownInline(basename(options.source))} (${plural(options.tasks.length, 'task')}, ${formatBytes(options.sourceBytes)})`,
    staticDetails: `**${plural(options.tasks.length, 'task')}** from ${escapeMarkdownInline(options.source)} · agent ${escapeMarkdownInline(options.agent)} · concurrency ${options.concurrency} · ${plural(options.retries, 'retry', 'retries')}${options.isolate ? ' · each task in a copy of the project' : ''}${webLinkDetails(options.webUrl && batchPageUrl(options.webUrl, batch.id))}`,
    priority: batchControlPriority(batch.id),
  });
  return { batch, handle };
}

/**
 * The tokens a batch's tasks have used so far, running ones included: the usage of their session
 * trees in the store (no Temporal call). The run's own count grows only as tasks end.
 */
export async function batchTokens(store: Pick<BudgetRecords, 'batchUsage'>, batchId: string): Promise<Tokens> {
  return (await store.batchUsage(batchId)).tokens;
}

/** A batch started without a file (`POST /batch`) is titled by its tasks: `Fix the parser + 5 more tasks`. */
export function titleFromTasks(tasks: Pick<BatchTaskInput, 'description'>[]): string {
  const first = tasks[0]?.description ?? 'no tasks';
  const shown = first.length > 60 ? `${first.slice(0, 59)}…` : first;
  return tasks.length > 1 ? `${shown} + ${plural(tasks.length - 1, 'more task')}` : shown;
}

/** A task's outcome in one line, as `loom batch results` and the web view list it. */
export function outcomeSummary(outcome: Pick<BatchTaskOutcome, 'text' | 'error'>): string {
  return outcome.text ? answerSummary(outcome.text) : (outcome.error ?? '').split('\n')[0].slice(0, 100);
}

/**
 * Tasks with what each spent: a completed task's outcome has its tokens; one that did not complete
 * (cancelled, failed, still running) gets its session tree's usage from the store, so a task
 * cancelled halfway shows what it spent before.
 */
export async function withSpentTokens<T extends { outcome: BatchTaskOutcome }>(
  store: Pick<BudgetRecords, 'subtreeUsage'>,
  entries: T[],
): Promise<T[]> {
  return Promise.all(
    entries.map(async (entry) => {
      const { outcome } = entry;
      if (outcome.tokens || !outcome.sessionId) return entry;
      const { tokens } = await store.subtreeUsage(outcome.sessionId);
      return { ...entry, outcome: { ...outcome, tokens } };
    }),
  );
}

/** A batch's progress with the tokens its running tasks have used too (see `batchTokens`). */
export async function withRunningTokens(
  store: Pick<BudgetRecords, 'batchUsage'>,
  progress: BatchProgress,
): Promise<BatchProgress> {
  return { ...progress, tokens: await batchTokens(store, progress.batchId) };
}

/**
 * Why a control cannot reach a batch that has ended, saying what became of it:
 * `Batch bat_… already completed (5 done, 1 failed); nothing to pause.` Undefined while it runs.
 */
export function endedBatchMessage(
  batch: Pick<BatchRecord, 'id' | 'status'>,
  counts: Awaited<ReturnType<BatchRecords['batchCounts']>>,
  action: BatchControl['action'],
): string | undefined {
  if (batch.status !== 'completed' && batch.status !== 'cancelled') return undefined;
  const outcomes = [
    `${counts.completed} done`,
    ...(counts.failed ? [`${counts.failed} failed`] : []),
    ...(counts.cancelled ? [`${counts.cancelled} cancelled`] : []),
  ].join(', ');
  const ended = batch.status === 'completed' ? 'already completed' : 'was cancelled';
  return `Batch ${batch.id} ${ended} (${outcomes}); nothing to ${action === 'concurrency' ? 'change' : action}.`;
}

/** A control a batch's run refused, or a batch that is not running: the caller's to hear (409 on the server). */
export class BatchControlError extends InputError {
  override name = 'BatchControlError';
}

/**
 * Sends a control to a batch's run (the update `loom batch
 * pause|resume|cancel|concurrency` sends) and returns its progress.
 */
export async function controlBatch(client: Client, batchId: string, control: BatchControl): Promise<BatchProgress> {
  try {
    return await client.workflow
      .getHandle<typeof batchWorkflow>(batchId)
      .executeUpdate(batchControlUpdate, { args: [control] });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) throw new BatchControlError(error.cause?.message ?? error.message);
    if (error instanceof WorkflowNotFoundError) throw new BatchControlError(`Batch ${batchId} is not running.`);
    throw error;
  }
}
