import { WorkflowNotFoundError } from '@temporalio/client';
import pc from 'picocolors';
import type { BatchProgress, BatchRecord } from '../../../core/batch/batch.js';
import { batchProgressQuery } from '../../../workflows/api.js';
import { withRunningTokens, type BatchHandle } from '../../services/batches.js';
import type { ClientContext } from '../../context.js';
import {
  BatchProgressView,
  batchSpan,
  formatRate,
  tasksPerSecond,
  type BatchSpan,
} from '../../render/batch-progress.js';
import { plural } from '../../render/quantities.js';

const POLL_MS = 500;

/**
 * Follows a batch with a progress bar until it ends, or until Ctrl-C, which only detaches: the
 * batch keeps running. Returns the exit code: 0 all done, 1 some failed, 130 cancelled or detached.
 */
export async function followBatch(
  context: ClientContext,
  handle: BatchHandle,
  batch: BatchRecord,
  options: { quiet?: boolean } = {},
): Promise<number> {
  const view = options.quiet ? undefined : new BatchProgressView(batch.total, batchSpan(batch));
  let detached = false;
  const detach = () => (detached = true);
  process.on('SIGINT', detach);
  let finished = false;
  const result = handle.result().finally(() => (finished = true));
  result.catch(() => undefined);
  try {
    while (!finished && !detached) {
      try {
        view?.update(await handle.query(batchProgressQuery));
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) break;
      }
      await Promise.race([new Promise((resolve) => setTimeout(resolve, POLL_MS)), result.catch(() => undefined)]);
    }
  } finally {
    process.off('SIGINT', detach);
  }
  if (detached) {
    view?.stop();
    context.report(
      `\nLeft batch ${handle.workflowId} running. \`loom batch status ${handle.workflowId} --watch\` follows it again.`,
    );
    if (context.hasInProcessWorker)
      context.report(
        pc.yellow('This command ran the only worker: the batch goes on when a worker runs (`loom worker`).'),
      );
    return 130;
  }
  // The run counts the tokens of tasks that ended; the store's usage also has those of cancelled ones.
  const progress = await withRunningTokens(context.store, await result);
  view?.update(progress);
  view?.stop();
  if (options.quiet) process.stdout.write(`${JSON.stringify(progress)}\n`);
  // The record's last status change is when the batch ended, as `loom batch status` will count it.
  else context.report(summary(progress, batchSpan((await context.store.getBatch(batch.id)) ?? batch)));
  if (!options.quiet && batch.isolation && progress.done > 0)
    context.report(
      `  The project is unchanged: \`loom batch diff ${batch.id}\` shows what each task changed in its copy, \`loom batch apply ${batch.id}\` applies it.`,
    );
  return progress.status === 'cancelled' ? 130 : progress.failed > 0 ? 1 : 0;
}

export function summary(progress: BatchProgress, span: BatchSpan): string {
  const tokens = progress.tokens.input + progress.tokens.output + progress.tokens.cache.read;
  return [
    `Batch ${progress.batchId} ${progress.status}: ${progress.done} done, ${progress.failed} failed, ${progress.cancelled} cancelled of ${progress.total}`,
    `  ${plural(tokens, 'token')} · ${formatRate(tasksPerSecond(progress, span))} · \`loom batch results ${progress.batchId}\``,
  ].join('\n');
}
