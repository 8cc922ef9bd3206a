import { setTimeout as sleep } from 'node:timers/promises';
import type { SessionStore } from '../../activities/store/store.js';
import { subagentSteps, type RunPrinter } from './run-printer.js';
import type { Part } from '../../core/part.js';
import type { ToolPart } from './tool-call.js';

/**
 * The longest a follower waits for word of a change before it looks anyway: a safety net for a
 * notification lost while the store's listening connection was down.
 */
const WAIT_MS = 2_000;
/** After a wake-up, what else a burst of writes (a streaming answer, a tool's parts) brings is read in the same look. */
const GATHER_MS = 50;

/** Prints a session's changes from the store until `done` settles, then prints the rest. */
export async function followSession(
  store: SessionStore,
  sessionId: string,
  since: number,
  printer: RunPrinter,
  done: Promise<unknown>,
): Promise<void> {
  let cursor = since;
  const described = new Set<string>();
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
    printer.update(changes, await subagentCalls(store, changes.parts, described));
    if (wasFinished) break;
    await store.waitForChange(sessionId, cursor, { timeoutMs: WAIT_MS, signal: settled.signal });
    await sleep(GATHER_MS, undefined, { signal: settled.signal }).catch(() => undefined);
  }
  printer.close();
}

/**
 * The subagents' tool calls that the changed task parts list as finished, read from the store once
 * each, so the live line describes a call from its input as `loom show` does.
 */
async function subagentCalls(store: SessionStore, parts: Part[], described: Set<string>): Promise<Map<string, ToolPart>> {
  const calls = new Map<string, ToolPart>();
  for (const id of subagentSteps(parts)) {
    if (described.has(id)) continue;
    described.add(id);
    const part = await store.getPart(id);
    if (part?.type === 'tool') calls.set(id, part);
  }
  return calls;
}

/** The store's current position, so a follower prints only what comes next. */
export async function currentCursor(store: SessionStore, sessionId: string): Promise<number> {
  return (await store.changes(sessionId, Number.MAX_SAFE_INTEGER)).cursor;
}
