import type { Message } from '../../core/records/message.js';
import type { Part } from '../../core/records/part.js';
import { feedPage, type FeedTables, type StoreFeed } from './feed-page.js';

/** What changed in a session since a cursor: for following a run live, and keeping a transcript current. */
export interface SessionChanges {
  /**
   * Where to read this session's next changes from (`changes`, `waitForChange`); at least every
   * revision returned. It says nothing of other sessions (PostgreSQL counts it per session, with
   * no lock): the whole store's position is `feed`'s cursor.
   */
  cursor: number;
  messages: Message[];
  parts: Part[];
  /**
   * Ids of parts deleted since the cursor (a retried model call starts its
   * answer again); a part written again after is in `parts`.
   */
  removedParts: string[];
  /**
   * Ids of messages deleted since the cursor (`removeMessages`), their parts with them; a message
   * written again after is in `messages`.
   */
  removedMessages: string[];
}

/** How long `waitForChange` may wait, and what ends the wait early. */
export interface WaitOptions {
  /** Resolve after this long even when nothing was seen to change. */
  timeoutMs: number;
  /** Resolve at once when this aborts (the follower is done). */
  signal?: AbortSignal;
}

/** How many rows one `feed` call returns at most, unless told otherwise. */
export const DEFAULT_FEED_LIMIT = 500;

/** Following the store: one session's changes, or everything written, and waiting for more. */
export interface ChangeFeed {
  changes(sessionId: string, since: number): Promise<SessionChanges>;
  /**
   * Waits, without polling `changes`, until the session may hold messages or parts newer than
   * `since` (a cursor from `changes`), or its own row or a permission request of it
   * changed, or until `timeoutMs` passes or `signal` aborts; it never
   * rejects. A wake-up is a hint, not a promise: the caller then calls `changes`, which says what
   * (if anything) is new. A follower loops `changes` → `waitForChange` with the cursor it got.
   * PostgreSQL learns of commits from any machine by LISTEN/NOTIFY; SQLite wakes at once on writes
   * through the same store object and looks every ~150 ms for writes by other processes.
   */
  waitForChange(sessionId: string, since: number, options: WaitOptions): Promise<void>;
  /**
   * Every session's changes after `since`, with sessions, permission requests, batches, and removed
   * parts, messages and sessions, each at its latest state, in revision order, at most `limit` (default 500) at a time.
   * Every revision up to the returned cursor is committed, so a reader that resumes from it misses
   * nothing. What `loom serve`'s event stream is made of.
   */
  feed(since: number, limit?: number): Promise<StoreFeed>;
  /** `waitForChange` for the whole store: resolves when anything may be newer than `since`. */
  waitForFeed(since: number, options: WaitOptions): Promise<void>;
}

/** The revisioned rows as a dialect reads them, and its way of waiting for new ones. */
export interface ChangeFeedRows {
  changes(sessionId: string, since: number): Promise<SessionChanges>;
  /** Each table's oldest `perTable` rows in (since, cursor], with a cursor up to which every revision is committed. */
  tablesAfter(since: number, perTable: number): Promise<{ cursor: number; tables: FeedTables }>;
  /** Waits for a change of one session, or of anything in the store when `sessionID` is undefined. */
  wait(sessionId: string | undefined, since: number, options: WaitOptions): Promise<void>;
}

export function changeFeed(rows: ChangeFeedRows): ChangeFeed {
  return {
    changes: async (sessionId, since) => rows.changes(sessionId, since),
    waitForChange: async (sessionId, since, options) => rows.wait(sessionId, since, options),
    async feed(since, limit = DEFAULT_FEED_LIMIT) {
      // One row more than a page from each table: a table with more rows than fit must cut the page.
      const { cursor, tables } = await rows.tablesAfter(since, limit + 1);
      return feedPage(cursor, tables, limit);
    },
    waitForFeed: async (since, options) => rows.wait(undefined, since, options),
  };
}
