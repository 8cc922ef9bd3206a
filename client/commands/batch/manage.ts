import { WorkflowNotFoundError } from '@temporalio/client';
import pc from 'picocolors';
import type { BatchProgress, BatchRecord } from '../../../core/batch/batch.js';
import { batchProgressQuery, type BatchControl } from '../../../workflows/api.js';
import {
  BatchControlError,
  batchTokens,
  controlBatch,
  endedBatchMessage,
  outcomeSummary,
  withRunningTokens,
  withSpentTokens,
} from '../../services/batches.js';
import type { batchWorkflow } from '../../../workflows/batch.js';
import { batchSpan } from '../../render/batch-progress.js';
import { formatBytes } from '../../render/quantities.js';
import { InputError } from '../../input-error.js';
import type { ClientContext } from '../../context.js';
import { followBatch, summary } from './follow.js';
import { wholeNumber } from './run.js';

async function findBatch(context: ClientContext, batchId: string): Promise<BatchRecord> {
  const batch = await context.store.getBatch(batchId);
  if (!batch) throw new InputError(`Unknown batch "${batchId}". \`loom batch ls\` lists batches.`);
  return batch;
}

/** Progress from the running batch, or from the store once it has ended; tokens from the store. */
async function progressOf(context: ClientContext, batch: BatchRecord): Promise<BatchProgress> {
  const { client } = await context.temporal();
  const handle = client.workflow.getHandle<typeof batchWorkflow>(batch.id);
  try {
    if ((await handle.describe()).status.name === 'RUNNING')
      return await withRunningTokens(context.store, await handle.query(batchProgressQuery));
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  const counts = await context.store.batchCounts(batch.id);
  const tokens = await batchTokens(context.store, batch.id);
  return {
    batchId: batch.id,
    status: batch.status,
    total: batch.total,
    done: counts.completed,
    failed: counts.failed,
    cancelled: counts.cancelled,
    running: counts.running,
    pending: counts.pending,
    concurrency: batch.concurrency,
    tokens,
    started: batch.time.created,
  };
}

/** `loom batch status <id> [--watch]`. */
export async function batchStatusCommand(
  context: ClientContext,
  batchId: string,
  options: { watch?: boolean; json?: boolean },
): Promise<number> {
  const batch = await findBatch(context, batchId);
  const progress = await progressOf(context, batch);
  if (options.watch && (progress.status === 'running' || progress.status === 'paused')) {
    const { client } = await context.temporal();
    await context.ensureWorker();
    return followBatch(context, client.workflow.getHandle<typeof batchWorkflow>(batch.id), batch, {
      quiet: options.json,
    });
  }
  if (options.json) process.stdout.write(`${JSON.stringify(progress)}\n`);
  else
    process.stdout.write(
      `${summary(progress, batchSpan(batch))}\n  ${progress.running} running · ${progress.pending} waiting · concurrency ${progress.concurrency}\n`,
    );
  return 0;
}

/** `loom batch results <id>`: every task and what became of it (JSONL with --json). */
export async function batchResultsCommand(
  context: ClientContext,
  batchId: string,
  options: { json?: boolean },
): Promise<number> {
  await findBatch(context, batchId);
  for (const { task, outcome } of await withSpentTokens(context.store, await context.store.batchTasks(batchId))) {
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ ...outcome, description: task.description })}\n`);
      continue;
    }
    const mark =
      outcome.status === 'completed' ? pc.green('✓') : outcome.status === 'failed' ? pc.red('✗') : pc.yellow('·');
    const answer = outcomeSummary(outcome);
    process.stdout.write(
      `${mark} ${String(outcome.index).padStart(5)}  ${outcome.status.padEnd(9)}  ${outcome.sessionId ?? '-'}  ${task.description}${answer ? pc.dim(`  — ${answer}`) : ''}\n`,
    );
    for (const file of outcome.changes?.files ?? [])
      process.stdout.write(pc.dim(`         ${file.status.padEnd(9)}  ${file.path}\n`));
  }
  return 0;
}

/** `loom batch pause|resume|cancel <id>` and `loom batch concurrency <id> <n>`. */
export async function batchControlCommand(
  context: ClientContext,
  batchId: string,
  control: BatchControl,
): Promise<number> {
  await refuseEnded(context, await findBatch(context, batchId), control);
  const { client } = await context.temporal();
  let progress;
  try {
    progress = await controlBatch(client, batchId, control);
  } catch (error) {
    // It may have ended since: say how, rather than only that it is not running.
    if (error instanceof BatchControlError) await refuseEnded(context, await findBatch(context, batchId), control);
    throw error;
  }
  const what =
    control.action === 'concurrency'
      ? `concurrency ${control.value}`
      : control.action === 'cancel'
        ? 'cancelling'
        : progress.status;
  context.report(
    `Batch ${batchId}: ${what} · ${progress.done} done · ${progress.running} running · ${progress.pending} waiting`,
  );
  return 0;
}

async function refuseEnded(context: ClientContext, batch: BatchRecord, control: BatchControl): Promise<void> {
  const ended = endedBatchMessage(batch, await context.store.batchCounts(batch.id), control.action);
  if (ended) throw new InputError(ended);
}

export function concurrencyControl(value: string): BatchControl {
  return { action: 'concurrency', value: wholeNumber('concurrency', value, 1) };
}

/** `loom batch ls`. */
export async function batchLsCommand(context: ClientContext, options: { json?: boolean }): Promise<number> {
  const batches = await context.store.listBatches();
  if (options.json) {
    const rows = await Promise.all(
      batches.map(async (batch) => ({ ...batch, counts: await context.store.batchCounts(batch.id) })),
    );
    process.stdout.write(`${JSON.stringify(rows)}\n`);
    return 0;
  }
  if (batches.length === 0) context.report('No batches yet. Start one with `loom batch run tasks.jsonl`.');
  for (const batch of batches) {
    const counts = await context.store.batchCounts(batch.id);
    process.stdout.write(
      `${batch.id}  ${batch.status.padEnd(9)}  ${counts.completed}/${batch.total} done${counts.failed ? `, ${counts.failed} failed` : ''}  ${batch.directory}  ${pc.dim(`${batch.source} (${formatBytes(batch.sourceBytes)}) · ${new Date(batch.time.created).toISOString().slice(0, 19).replace('T', ' ')}`)}\n`,
    );
  }
  return 0;
}
