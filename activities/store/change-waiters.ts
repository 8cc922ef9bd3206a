import type { WaitOptions } from './change-feed.js';

/** One call of `waitForChange` that has not resolved yet. */
export interface Waiter {
  /** Undefined: a change anywhere in the store wakes it. */
  readonly sessionID: string | undefined;
  readonly since: number;
  /** Resolves the call (once; later calls do nothing). */
  wake(): void;
  /** Settles when the call resolves, for whatever reason. */
  readonly settled: Promise<void>;
}

/**
 * The pending `waitForChange` calls of one store. Each resolves exactly once: when the store wakes
 * it, on its timeout, on its signal, or when the store closes; it never rejects, so a follower's
 * loop needs no error path for waiting.
 */
export class ChangeWaiters {
  private readonly waiting = new Set<Waiter>();

  get size(): number {
    return this.waiting.size;
  }

  add(sessionId: string | undefined, since: number, options: WaitOptions): Waiter {
    let resolve: () => void = () => undefined;
    const settled = new Promise<void>((done) => (resolve = done));
    const { signal } = options;
    const waiter: Waiter = {
      sessionID: sessionId,
      since,
      settled,
      wake: () => {
        if (!this.waiting.delete(waiter)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', waiter.wake);
        resolve();
      },
    };
    this.waiting.add(waiter);
    const timer = setTimeout(waiter.wake, Math.max(0, options.timeoutMs));
    if (signal?.aborted) waiter.wake();
    else signal?.addEventListener('abort', waiter.wake, { once: true });
    return waiter;
  }

  /** Wakes every waiter of a session and every waiter of the whole store (only those, when undefined). */
  wakeSession(sessionId: string | undefined): void {
    for (const waiter of [...this.waiting])
      if (waiter.sessionID === undefined || waiter.sessionID === sessionId) waiter.wake();
  }

  wakeAll(): void {
    for (const waiter of [...this.waiting]) waiter.wake();
  }

  /** A copy, so waking while iterating is safe. */
  list(): Waiter[] {
    return [...this.waiting];
  }
}
