import { SingleBar } from 'cli-progress';
import type { BatchProgress, BatchRecord } from '../../core/batch/batch.js';

/** The time a batch's rate counts: from when it was created until now, or until it ended. */
export interface BatchSpan {
  started: number;
  ended?: number;
}

/**
 * A batch's span, from its record in the store: a completed or
 * cancelled batch's clock stopped at its last status change.
 */
export function batchSpan(batch: Pick<BatchRecord, 'status' | 'time'>): BatchSpan {
  const ended = batch.status === 'completed' || batch.status === 'cancelled';
  return { started: batch.time.created, ...(ended ? { ended: batch.time.updated } : {}) };
}

/**
 * Finished tasks (done or failed: a cancelled task was stopped, not worked through) per second of
 * the batch's span. The one rate `loom batch run`'s bar and summary and `loom batch status` show.
 */
export function tasksPerSecond(
  progress: Pick<BatchProgress, 'done' | 'failed'>,
  span: BatchSpan,
  now = Date.now(),
): number {
  const seconds = ((span.ended ?? now) - span.started) / 1000;
  return seconds > 0 ? (progress.done + progress.failed) / seconds : 0;
}

export function formatRate(tasksPerSecond: number): string {
  return `${tasksPerSecond.toFixed(1)} tasks/s`;
}

/**
 * What became of a batch's tasks so far, as its summary counts them: `4 done · 1 failed · 1
 * cancelled · 2 running of 8`. Cancelled tasks are not done ones (the bar's length counts both).
 */
export function progressCounts(
  progress: Pick<BatchProgress, 'done' | 'failed' | 'cancelled' | 'running' | 'total'>,
): string {
  return (
    [
      `${progress.done} done`,
      `${progress.failed} failed`,
      ...(progress.cancelled ? [`${progress.cancelled} cancelled`] : []),
      ...(progress.running ? [`${progress.running} running`] : []),
    ].join(' · ') + ` of ${progress.total}`
  );
}

/**
 * A batch's progress as a bar on stderr (done, failed, running, rate, ETA); without a terminal,
 * one line every few seconds instead.
 */
export class BatchProgressView {
  private readonly bar: SingleBar | undefined;
  private lastLine = 0;

  constructor(
    private readonly total: number,
    private readonly span: BatchSpan,
  ) {
    if (process.stderr.isTTY) {
      this.bar = new SingleBar({
        format: '{bar} {percentage}% | {counts} | {rate} | ETA {eta_formatted}',
        hideCursor: true,
        stream: process.stderr,
        etaBuffer: 50,
      });
      this.bar.start(total, 0, { counts: `0 done of ${total}`, rate: formatRate(0) });
    }
  }

  update(progress: BatchProgress): void {
    const finished = progress.done + progress.failed + progress.cancelled;
    const rate = formatRate(tasksPerSecond(progress, this.span));
    if (this.bar) {
      this.bar.update(finished, { counts: progressCounts(progress), rate });
      return;
    }
    if (Date.now() - this.lastLine < 5_000) return;
    this.lastLine = Date.now();
    process.stderr.write(`${progressCounts(progress)} · ${rate}\n`);
  }

  stop(): void {
    this.bar?.stop();
  }
}
