import type { SessionChanges } from '../../../activities/store/change-feed.js';
import type { Message } from '../../../core/records/message.js';
import type { Part } from '../../../core/records/part.js';

/** One message of the transcript with its parts in order, and a revision that changes whenever either does. */
export interface Entry {
  message: Message;
  parts: Part[];
  revision: number;
}

/**
 * A session's transcript as the store's change feed builds it: messages in creation order (their
 * ids sort so), each with its parts. Applying the changes since the last cursor is all a view needs.
 */
export class TranscriptModel {
  private readonly entries = new Map<string, { message: Message; parts: Map<string, Part>; revision: number }>();
  private ordered: Entry[] | undefined;
  private revision = 0;

  /** Applies a batch of changes; whether anything changed. */
  apply(changes: Pick<SessionChanges, 'messages' | 'parts' | 'removedParts' | 'removedMessages'>): boolean {
    const before = this.revision;
    for (const id of changes.removedMessages) if (this.entries.delete(id)) this.revision++;
    for (const message of changes.messages) {
      const entry = this.entries.get(message.id);
      if (entry) entry.message = message;
      else this.entries.set(message.id, { message, parts: new Map(), revision: 0 });
      this.touch(message.id);
    }
    for (const part of changes.parts) {
      const entry = this.entries.get(part.messageID);
      if (!entry) continue; // Its message was removed after the part was written.
      entry.parts.set(part.id, part);
      this.touch(part.messageID);
    }
    for (const id of changes.removedParts) {
      for (const [messageId, entry] of this.entries) if (entry.parts.delete(id)) this.touch(messageId);
    }
    if (this.revision !== before) this.ordered = undefined;
    return this.revision !== before;
  }

  /** The messages in order, each with its parts in order. */
  list(): Entry[] {
    this.ordered ??= [...this.entries.values()]
      .sort((a, b) => compare(a.message.id, b.message.id))
      .map(({ message, parts, revision }) => ({
        message,
        parts: [...parts.values()].sort((a, b) => compare(a.id, b.id)),
        revision,
      }));
    return this.ordered;
  }

  get size(): number {
    return this.entries.size;
  }

  private touch(messageId: string): void {
    const entry = this.entries.get(messageId);
    if (entry) entry.revision = ++this.revision;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
