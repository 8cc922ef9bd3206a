import type { MessageWithParts } from './message.js';

/**
 * A session's turns: each user message (a prompt) starts one, numbered from 1 in the session's
 * order, as `loom show` prints them and `loom revert`, `fork` and `diff --message` take them.
 * Returns the id of each turn's user message, turn 1 first.
 */
export function turnMessageIds(messages: MessageWithParts[]): string[] {
  return messages.filter((message) => message.info.role === 'user').map((message) => message.info.id);
}
