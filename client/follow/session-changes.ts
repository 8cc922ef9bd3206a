import { setTimeout as sleep } from 'node:timers/promises';
import type { ChangeFeed, SessionChanges } from '../../activities/store/change-feed.js';

/** What a follower hands the changes to: the terminal's printer, an editor's updates. */
export interface ChangesSink {
  update(changes: SessionChanges): void | Promise<void>;
  close?(): void;
}

/**
 * The longest a follower waits for word of a change before it looks anyway: a safety net for a
 * notification lost while the store's listening connection was down.
 */
const WAIT_MS = 2_000;
/**
 * After a wake-up, what else a burst of writes (a streaming answer, a tool's parts) brings is read in the same look.
 */
const GATHER_MS = 50;

/** Hands a session's changes from the store to `sink` until `done` settles, then the rest. */
export async function followSession(
  store: ChangeFeed,
  sessionId: string,
  since: number,
  sink: ChangesSink,
  done: Promise<unknown>,
): Promise<void> {
  let cursor = since;
  let finished = false;
  const settled = new AbortController();
  void done
    .finally(() => {
      finished = true;
      settled.abort();
    })
    .catch(() => undefined);
  for (;;) {
    const wasFinished = finished;
    const changes = await store.changes(sessionId, cursor);
    cursor = changes.cursor;
    await sink.update(changes);
    if (wasFinished) break;
    await store.waitForChange(sessionId, cursor, { timeoutMs: WAIT_MS, signal: settled.signal });
    await sleep(GATHER_MS, undefined, { signal: settled.signal }).catch(() => undefined);
  }
  sink.close?.();
}

/** The store's current position, so a follower prints only what comes next. */
export async function currentCursor(store: ChangeFeed, sessionId: string): Promise<number> {
  return (await store.changes(sessionId, Number.MAX_SAFE_INTEGER)).cursor;
}
