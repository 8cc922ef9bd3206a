import type { Message, MessageWithParts } from '../../core/records/message.js';
import type { Part } from '../../core/records/part.js';
import type { ChangeFeed } from '../store/change-feed.js';
import type { MessageRecords } from '../store/messages.js';
import type { SessionChanges } from '../store/change-feed.js';

/**
 * What a worker keeps, the least recently called session dropped first: as many sessions as it
 * runs at once (hundreds, each step missing the cache would read the whole transcript again), as
 * long as their text stays under the byte budget (a few long sessions must not hold the heap).
 */
export const TRANSCRIPT_CACHE_LIMITS = { sessions: 1_000, bytes: 128 * 1024 * 1024 };

/**
 * Each session's messages since its last compaction, kept between model calls: a step reads only
 * what the store's change cursor says is new (the previous step's answer and tool results), not
 * the whole transcript again, so its cost does not grow with the session. The result is what
 * `store.messages(session, compactionStart)` returns, in the same order. Any worker may take any
 * step: a copy that missed steps catches up from its cursor, and a compaction starts it afresh.
 */
export class TranscriptCache {
  private readonly sessions = new Map<string, SessionTranscript>();
  private bytes = 0;

  constructor(
    private readonly store: ChangeFeed & MessageRecords,
    private readonly limits = TRANSCRIPT_CACHE_LIMITS,
  ) {}

  async history(sessionId: string): Promise<MessageWithParts[]> {
    const start = (await this.store.compactionStart(sessionId)) ?? '';
    let transcript = this.sessions.get(sessionId);
    if (transcript) this.drop(sessionId, transcript);
    if (transcript?.start !== start) transcript = new SessionTranscript(start);
    transcript.apply(await this.store.changes(sessionId, transcript.cursor));
    this.sessions.set(sessionId, transcript);
    this.bytes += transcript.bytes;
    for (const [oldest, kept] of this.sessions) {
      if (oldest === sessionId) break;
      if (this.sessions.size <= this.limits.sessions && this.bytes <= this.limits.bytes) break;
      this.drop(oldest, kept);
    }
    return transcript.messages();
  }

  /** What the cache holds, for tests and the bench. */
  held(): { sessions: number; bytes: number } {
    return { sessions: this.sessions.size, bytes: this.bytes };
  }

  private drop(sessionId: string, transcript: SessionTranscript): void {
    this.sessions.delete(sessionId);
    this.bytes -= transcript.bytes;
  }
}

class SessionTranscript {
  cursor = 0;
  /** The JSON length of what it holds: near enough the memory its strings take. */
  bytes = 0;
  private readonly sizes = new Map<string, number>();
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
      this.unsize(id);
      this.messageOfPart.delete(id);
      this.parts.get(messageId)?.delete(id);
      this.built.delete(messageId);
    }
    for (const id of changes.removedMessages) {
      for (const partId of this.parts.get(id)?.keys() ?? []) {
        this.messageOfPart.delete(partId);
        this.unsize(partId);
      }
      this.unsize(id);
      this.parts.delete(id);
      this.built.delete(id);
      if (this.infos.delete(id)) this.order = this.order.filter((kept) => kept !== id);
    }
    let added = false;
    for (const info of changes.messages) {
      if (info.id < this.start) continue;
      if (!this.infos.has(info.id)) added = true;
      this.infos.set(info.id, info);
      this.size(info.id, info);
      this.built.delete(info.id);
    }
    for (const part of changes.parts) {
      if (part.messageID < this.start) continue;
      let parts = this.parts.get(part.messageID);
      if (!parts) this.parts.set(part.messageID, (parts = new Map()));
      parts.set(part.id, part);
      this.size(part.id, part);
      this.messageOfPart.set(part.id, part.messageID);
      this.built.delete(part.messageID);
    }
    if (added) this.order = [...this.infos.keys()].sort(byId);
    this.cursor = changes.cursor;
  }

  private size(id: string, value: Message | Part): void {
    const bytes = JSON.stringify(value).length;
    this.bytes += bytes - (this.sizes.get(id) ?? 0);
    this.sizes.set(id, bytes);
  }

  private unsize(id: string): void {
    this.bytes -= this.sizes.get(id) ?? 0;
    this.sizes.delete(id);
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
