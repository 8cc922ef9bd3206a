import type { SessionStore } from '../../activities/store/store.js';
import type { RunPrinter } from './run-printer.js';

const POLL_MS = 100;

/** Prints a session's changes from the store until `done` settles, then prints the rest. */
export async function followSession(
  store: SessionStore,
  sessionId: string,
  since: number,
  printer: RunPrinter,
  done: Promise<unknown>,
): Promise<void> {
  let cursor = since;
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => undefined);
  for (;;) {
    const wasFinished = finished;
    const changes = await store.changes(sessionId, cursor);
    cursor = changes.cursor;
    printer.update(changes);
    if (wasFinished) break;
    await Promise.race([sleep(POLL_MS), done.catch(() => undefined)]);
  }
  printer.close();
}

/** The store's current position, so a follower prints only what comes next. */
export async function currentCursor(store: SessionStore, sessionId: string): Promise<number> {
  return (await store.changes(sessionId, Number.MAX_SAFE_INTEGER)).cursor;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
