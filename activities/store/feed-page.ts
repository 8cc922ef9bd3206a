import { BatchRecord } from '../../core/batch/batch.js';
import { Message } from '../../core/records/message.js';
import { Part } from '../../core/records/part.js';
import { PermissionRequestRecord } from '../../core/rules/permission-request.js';
import { Session } from '../../core/records/session.js';
import type { FeedRow } from '../../core/records/bus-events.js';

/** One row written after a cursor, as the store's feed of every session returns it. */
export type FeedEntry = { rev: number } & FeedRow;

/** What was written after a cursor, oldest first; `more` when `cursor` stopped at the page's end. */
export interface StoreFeed {
  cursor: number;
  entries: FeedEntry[];
  more: boolean;
}

/** A revisioned row's `data` document, not yet validated. */
export type FeedDocument = { rev: number; data: unknown };

/** What each table holds after a cursor, as read for one page of the feed. */
export interface FeedTables {
  session: FeedDocument[];
  message: FeedDocument[];
  part: FeedDocument[];
  permission: FeedDocument[];
  batch: FeedDocument[];
  removed: { rev: number; id: string; message_id: string; session_id: string }[];
  messageRemoved: { rev: number; id: string; session_id: string }[];
  /** Deleted sessions' tombstones: `data` is the session as it was last. */
  sessionRemoved: FeedDocument[];
}

/**
 * One page of the feed from each table's oldest `limit` rows after the cursor: revisions are
 * unique across tables, so the page's rows are the store's oldest, and when the page is cut the
 * cursor stops at its last row (the rest comes with the next call).
 */
export function feedPage(cursor: number, tables: FeedTables, limit: number): StoreFeed {
  const entries = entriesOf(tables).sort((a, b) => a.rev - b.rev);
  if (entries.length <= limit) return { cursor, entries, more: false };
  const page = entries.slice(0, limit);
  return { cursor: page[page.length - 1].rev, entries: page, more: true };
}

function entriesOf(tables: FeedTables): FeedEntry[] {
  return [
    ...tables.session.map(({ rev, data }): FeedEntry => ({ rev, kind: 'session', session: Session.parse(data) })),
    ...tables.message.map(({ rev, data }): FeedEntry => ({ rev, kind: 'message', message: Message.parse(data) })),
    ...tables.part.map(({ rev, data }): FeedEntry => ({ rev, kind: 'part', part: Part.parse(data) })),
    ...tables.permission.map(({ rev, data }): FeedEntry => ({
      rev,
      kind: 'permission',
      request: PermissionRequestRecord.parse(data),
    })),
    ...tables.batch.map(({ rev, data }): FeedEntry => ({ rev, kind: 'batch', batch: BatchRecord.parse(data) })),
    ...tables.removed.map((row): FeedEntry => ({
      rev: row.rev,
      kind: 'part-removed',
      partID: row.id,
      messageID: row.message_id,
      sessionID: row.session_id,
    })),
    ...tables.messageRemoved.map((row): FeedEntry => ({
      rev: row.rev,
      kind: 'message-removed',
      messageID: row.id,
      sessionID: row.session_id,
    })),
    ...tables.sessionRemoved.map(({ rev, data }): FeedEntry => ({
      rev,
      kind: 'session-removed',
      session: Session.parse(data),
    })),
  ];
}
