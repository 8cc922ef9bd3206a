import type { SessionStore } from './store/store.js';

/**
 * When a message was first written; a retried activity keeps that time. (A message id sorts the
 * message into its session, but its time part is the run's start, not the message's.)
 */
export async function createdTime(store: SessionStore, messageId: string): Promise<number> {
  return (await store.getMessage(messageId))?.time.created ?? Date.now();
}
