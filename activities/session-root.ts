import type { SessionStore } from './store/store.js';

/** The root of a session's tree: the session itself, or the first of its ancestors without a parent. */
export async function rootSessionOf(store: SessionStore, sessionId: string): Promise<string> {
  let id = sessionId;
  for (;;) {
    const parent = (await store.getSession(id))?.parentID;
    if (!parent) return id;
    id = parent;
  }
}
