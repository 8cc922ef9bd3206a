import { SingleBar } from 'cli-progress';
import type { BatchProgress, BatchRecord } from '../../core/batch.js';

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
        format:
          '{bar} {percentage}% | {value}/{total} done · {failed} failed · {running} running | {rate} | ETA {eta_formatted}',
        hideCursor: true,
        stream: process.stderr,
        etaBuffer: 50,
      });
      this.bar.start(total, 0, { failed: 0, running: 0, rate: formatRate(0) });
    }
  }

  update(progress: BatchProgress): void {
    const finished = progress.done + progress.failed + progress.cancelled;
    const rate = formatRate(tasksPerSecond(progress, this.span));
    if (this.bar) {
      this.bar.update(finished, { failed: progress.failed, running: progress.running, rate });
      return;
    }
    if (Date.now() - this.lastLine < 5_000) return;
    this.lastLine = Date.now();
    process.stderr.write(
      `${finished}/${this.total} done · ${progress.failed} failed · ${progress.running} running · ${rate}\n`,
    );
  }

  stop(): void {
    this.bar?.stop();
  }
}
