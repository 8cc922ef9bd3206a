import type { MessageRecords } from '../store/messages.js';
import type { SessionRecords } from '../store/sessions.js';

/**
 * A reverted session's hidden messages go for good when its next prompt is written (as in
 * OpenCode): from then on the revert cannot be undone. `keep` is the prompt's own message, which
 * an activity tried again may already have written.
 */
export async function dropRevertedMessages(
  store: SessionRecords & MessageRecords,
  sessionId: string,
  keep: string,
): Promise<void> {
  const session = await store.getSession(sessionId);
  if (!session?.revert) return;
  const hidden = await store.messages(sessionId, session.revert.messageID);
  await store.removeMessages(
    sessionId,
    hidden.map(({ info }) => info.id).filter((id) => id !== keep),
  );
  const { revert: _, ...settled } = (await store.getSession(sessionId))!;
  await store.saveSession(settled);
}
