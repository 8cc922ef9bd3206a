import { SingleBar } from 'cli-progress';
import type { BatchProgress } from '../../core/batch.js';

/**
 * A batch's progress as a bar on stderr (done, failed, running, rate, ETA); without a terminal,
 * one line every few seconds instead.
 */
export class BatchProgressView {
  private readonly bar: SingleBar | undefined;
  private lastLine = 0;

  constructor(private readonly total: number) {
    if (process.stderr.isTTY) {
      this.bar = new SingleBar({
        format: '{bar} {percentage}% | {value}/{total} done · {failed} failed · {running} running | {rate}/s | ETA {eta_formatted}',
        hideCursor: true,
        stream: process.stderr,
        etaBuffer: 50,
      });
      this.bar.start(total, 0, { failed: 0, running: 0, rate: '0.0' });
    }
  }

  update(progress: BatchProgress): void {
    const finished = progress.done + progress.failed + progress.cancelled;
    const seconds = (Date.now() - progress.started) / 1000;
    const rate = seconds > 0 ? (finished / seconds).toFixed(1) : '0.0';
    if (this.bar) {
      this.bar.update(finished, { failed: progress.failed, running: progress.running, rate });
      return;
    }
    if (Date.now() - this.lastLine < 5_000) return;
    this.lastLine = Date.now();
    process.stderr.write(`${finished}/${this.total} done · ${progress.failed} failed · ${progress.running} running · ${rate}/s\n`);
  }

  stop(): void {
    this.bar?.stop();
  }
}
