import { idSequence, nextId, partId } from './ids.js';
import type { Message, MessageWithParts } from './message.js';
import type { Part } from './part.js';

/**
 * A transcript under new ids, for another session (a fork, an import): messages keep their order
 * (new ids sort like the old ones), parts their place, answers the prompt they answer. What only
 * the original session can use is left behind: the stored prompts messages were written from, and
 * snapshots of files, when the copy works on other files (`keepPatches: false`).
 */
export function copyTranscript(
  messages: MessageWithParts[],
  sessionId: string,
  options: { now: number; random?: () => number; keepPatches?: boolean },
): MessageWithParts[] {
  const random = options.random ?? Math.random;
  const sequence = idSequence(options.now);
  const newIds = new Map(messages.map(({ info }) => [info.id, nextId('msg', sequence, random)]));
  let lastPrompt: string | undefined;
  return messages.map(({ info, parts }) => {
    const id = newIds.get(info.id)!;
    if (info.role === 'user') lastPrompt = id;
    // An answer to a prompt the copy lacks answers the last prompt it has.
    const message: Message =
      info.role === 'user'
        ? { ...withoutPrompt(info), id, sessionID: sessionId }
        : { ...info, id, sessionID: sessionId, parentID: newIds.get(info.parentID) ?? lastPrompt ?? info.parentID };
    const kept = parts.filter((part) => options.keepPatches !== false || part.type !== 'patch');
    return {
      info: message,
      parts: kept.map((part, index): Part => ({ ...part, id: partId(id, index), sessionID: sessionId, messageID: id })),
    };
  });
}

function withoutPrompt<T extends { promptID?: string }>(message: T): Omit<T, 'promptID'> {
  const { promptID: _, ...rest } = message;
  return rest;
}
