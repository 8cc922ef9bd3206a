/** One turn being followed: whether the editor cancelled it. */
export interface TurnState {
  cancelled: boolean;
}

/**
 * The turns this connection follows, by session: what `session/cancel` marks, and what an editor
 * that disconnects leaves running. Nothing here is needed after a restart: the runs and their
 * transcripts are in Temporal and the store.
 */
export class Turns {
  private readonly current = new Map<string, TurnState>();
  private readonly following = new Map<Promise<unknown>, string>();

  /** Starts a turn of a session (a prompt, or the run a load found); `cancel` marks the latest. */
  begin(sessionId: string): TurnState {
    const state = { cancelled: false };
    this.current.set(sessionId, state);
    return state;
  }

  cancel(sessionId: string): void {
    const state = this.current.get(sessionId);
    if (state) state.cancelled = true;
  }

  /** Keeps a follow in view until it settles. */
  track<T>(sessionId: string, follow: Promise<T>): Promise<T> {
    const settled = follow.finally(() => this.following.delete(settled));
    this.following.set(settled, sessionId);
    settled.catch(() => undefined);
    return settled;
  }

  /** The sessions whose turns are still followed. */
  get running(): string[] {
    return [...new Set(this.following.values())];
  }

  /** Resolves when every followed turn has ended. */
  async allEnded(): Promise<void> {
    while (this.following.size) await Promise.allSettled([...this.following.keys()]);
  }
}
