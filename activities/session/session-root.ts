import type { SessionRecords } from '../store/sessions.js';

/**
 * The root of a session's tree: its last ancestor the store knows (the session itself when it has
 * no parent, or is not stored yet). Where "always" approvals live and what a tree check compares.
 */
export async function rootSessionOf(store: SessionRecords, sessionId: string): Promise<string> {
  let root = sessionId;
  for (let session = await store.getSession(sessionId); session?.parentID;) {
    const parent = await store.getSession(session.parentID);
    if (!parent) break;
    root = parent.id;
    session = parent;
  }
  return root;
}
