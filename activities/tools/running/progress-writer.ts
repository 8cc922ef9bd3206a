import type { PartRecords } from '../../store/parts.js';

type Progress = { title?: string; metadata?: Record<string, unknown> };

/**
 * Writes a running tool call's progress (title, metadata such as output so far) at most every
 * `throttleMs`, and never after the call has finished.
 */
export class ProgressWriter {
  private pending: Progress | undefined;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly store: PartRecords,
    private readonly partId: string,
    private readonly throttleMs = 250,
  ) {}

  update(progress: Progress): void {
    if (this.stopped) return;
    this.pending = {
      title: progress.title ?? this.pending?.title,
      metadata: { ...this.pending?.metadata, ...progress.metadata },
    };
    this.timer ??= setTimeout(() => this.flush(), this.throttleMs);
  }

  /** Writes nothing more; waits for a write under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.writing;
  }

  private flush(): void {
    this.timer = undefined;
    const progress = this.pending;
    this.pending = undefined;
    if (!progress || this.stopped) return;
    this.writing = this.writing
      .then(() =>
        this.store.updatePart(this.partId, (part) =>
          part.type === 'tool' && part.state.status === 'running'
            ? {
                ...part,
                state: {
                  ...part.state,
                  title: progress.title ?? part.state.title,
                  metadata: { ...part.state.metadata, ...progress.metadata },
                },
              }
            : part,
        ),
      )
      .then(
        () => undefined,
        () => undefined, // Progress is best effort; the final state is written by the caller.
      );
  }
}
