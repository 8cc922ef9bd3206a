import type { Message, MessageWithParts } from '../../core/message.js';
import type { Part } from '../../core/part.js';
import type { ChangeFeed } from '../store/change-feed.js';
import type { MessageRecords } from '../store/messages.js';
import type { SessionChanges } from '../store/change-feed.js';

/** Sessions whose transcript a worker keeps; the least recently called is dropped first. */
const MAX_SESSIONS = 32;

/**
 * Each session's messages since its last compaction, kept between model calls: a step reads only
 * what the store's change cursor says is new (the previous step's answer and tool results), not
 * the whole transcript again, so its cost does not grow with the session. The result is what
 * `store.messages(session, compactionStart)` returns, in the same order. Any worker may take any
 * step: a copy that missed steps catches up from its cursor, and a compaction starts it afresh.
 */
export class TranscriptCache {
  private readonly sessions = new Map<string, SessionTranscript>();

  constructor(private readonly store: ChangeFeed & MessageRecords) {}

  async history(sessionId: string): Promise<MessageWithParts[]> {
    const start = (await this.store.compactionStart(sessionId)) ?? '';
    let transcript = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    if (transcript?.start !== start) transcript = new SessionTranscript(start);
    transcript.apply(await this.store.changes(sessionId, transcript.cursor));
    this.sessions.set(sessionId, transcript);
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    return transcript.messages();
  }
}

class SessionTranscript {
  cursor = 0;
  private readonly infos = new Map<string, Message>();
  /** Parts by message, as the store groups them; a part may arrive before its message. */
  private readonly parts = new Map<string, Map<string, Part>>();
  private readonly messageOfPart = new Map<string, string>();
  private readonly built = new Map<string, MessageWithParts>();
  private order: string[] = [];

  constructor(readonly start: string) {}

  apply(changes: SessionChanges): void {
    for (const id of changes.removedParts) {
      const messageId = this.messageOfPart.get(id);
      if (messageId === undefined) continue;
      this.messageOfPart.delete(id);
      this.parts.get(messageId)?.delete(id);
      this.built.delete(messageId);
    }
    for (const id of changes.removedMessages) {
      for (const partId of this.parts.get(id)?.keys() ?? []) this.messageOfPart.delete(partId);
      this.parts.delete(id);
      this.built.delete(id);
      if (this.infos.delete(id)) this.order = this.order.filter((kept) => kept !== id);
    }
    let added = false;
    for (const info of changes.messages) {
      if (info.id < this.start) continue;
      if (!this.infos.has(info.id)) added = true;
      this.infos.set(info.id, info);
      this.built.delete(info.id);
    }
    for (const part of changes.parts) {
      if (part.messageID < this.start) continue;
      let parts = this.parts.get(part.messageID);
      if (!parts) this.parts.set(part.messageID, (parts = new Map()));
      parts.set(part.id, part);
      this.messageOfPart.set(part.id, part.messageID);
      this.built.delete(part.messageID);
    }
    if (added) this.order = [...this.infos.keys()].sort(byId);
    this.cursor = changes.cursor;
  }

  messages(): MessageWithParts[] {
    return this.order.map((id) => {
      let message = this.built.get(id);
      if (!message) {
        const parts = [...(this.parts.get(id)?.values() ?? [])].sort((a, b) => byId(a.id, b.id));
        this.built.set(id, (message = { info: this.infos.get(id)!, parts }));
      }
      return message;
    });
  }
}

/** The stores' order: ids compared by code unit, as SQLite's BINARY and PostgreSQL's "C" collation do. */
function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
