import { Message, type AssistantMessage, type MessageWithParts, type Tokens } from '../../core/records/message.js';
import type { Part } from '../../core/records/part.js';
import { usageOfSums, type UsageSums } from './usage.js';

/** A session's messages, and what the workflow asks of them. */
export interface MessageRecords {
  saveMessage(message: Message): Promise<void>;
  getMessage(id: string): Promise<Message | undefined>;
  /** The session's messages with their parts, in creation order; `since` starts at that message. */
  messages(sessionId: string, since?: string): Promise<MessageWithParts[]>;
  /**
   * Where the model's view of a session starts: the last compaction request whose summary
   * finished without error, or undefined when there is none.
   */
  compactionStart(sessionId: string): Promise<string | undefined>;
  /** The last assistant message that finished a step (not a summary, no error). */
  lastFinishedStep(sessionId: string): Promise<AssistantMessage | undefined>;
  /** Tokens and cost of a session's own assistant messages (not its subagents'). */
  usage(sessionId: string): Promise<{ tokens: Tokens; cost: number }>;
  /**
   * Deletes these messages of the session and all their parts, in one transaction, each leaving a
   * removal row at its own revision (parts first), so followers learn of it. Ids the session does
   * not hold are ignored.
   */
  removeMessages(sessionId: string, messageIds: string[]): Promise<void>;
}

/** Message rows as a dialect stores them; what it is given is already validated. */
export interface MessageRows {
  /** Writes the message at a new revision. */
  upsert(message: Message): Promise<void>;
  get(id: string): Promise<Message | undefined>;
  /** The session's messages and parts from `since` on, each in id order, read from one snapshot. */
  withParts(sessionId: string, since: string): Promise<{ messages: Message[]; parts: Part[] }>;
  /** The ids of the messages holding the session's latest compaction requests, newest first. */
  compactionRequests(sessionId: string): Promise<string[]>;
  /** The first summary message after `messageID`. */
  summaryAfter(sessionId: string, messageId: string): Promise<Message | undefined>;
  /** The session's latest assistant messages, newest first. */
  recentAssistant(sessionId: string): Promise<Message[]>;
  usage(sessionId: string): Promise<UsageSums>;
  /** Deletes the session's messages of these ids and their parts, with removal rows, in one transaction. */
  remove(sessionId: string, messageIds: string[]): Promise<void>;
}

export function messageRecords(rows: MessageRows): MessageRecords {
  return {
    saveMessage: async (message) => rows.upsert(Message.parse(message)),
    getMessage: async (id) => rows.get(id),
    async messages(sessionId, since = '') {
      const { messages, parts } = await rows.withParts(sessionId, since);
      const byMessage = new Map<string, Part[]>(messages.map((m) => [m.id, []]));
      for (const part of parts) byMessage.get(part.messageID)?.push(part);
      return messages.map((info) => ({ info, parts: byMessage.get(info.id) ?? [] }));
    },
    async compactionStart(sessionId) {
      for (const request of await rows.compactionRequests(sessionId)) {
        const summary = await rows.summaryAfter(sessionId, request);
        if (summary?.role === 'assistant' && summary.finish && !summary.error) return request;
      }
      return undefined;
    },
    async lastFinishedStep(sessionId) {
      for (const message of await rows.recentAssistant(sessionId)) {
        if (message.role === 'assistant' && message.finish && !message.summary && !message.error) return message;
      }
      return undefined;
    },
    usage: async (sessionId) => usageOfSums(await rows.usage(sessionId)),
    async removeMessages(sessionId, messageIds) {
      if (messageIds.length > 0) await rows.remove(sessionId, [...new Set(messageIds)]);
    },
  };
}
