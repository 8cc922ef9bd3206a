import type { Session } from '../../core/records/session.js';
import type { SessionRecords } from './sessions.js';

/** A session and every session under it (its subagents', recursively), each after all of its own children. */
export async function sessionSubtree(store: Pick<SessionRecords, 'children'>, session: Session): Promise<Session[]> {
  const below: Session[] = [];
  for (const child of await store.children(session.id)) below.push(...(await sessionSubtree(store, child)));
  return [...below, session];
}
