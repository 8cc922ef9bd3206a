import { BatchRecord } from '../../core/batch.js';
import { Message } from '../../core/message.js';
import { Part } from '../../core/part.js';
import { PermissionRequestRecord } from '../../core/permission-request.js';
import { Session } from '../../core/session.js';
import { feedPage } from './feed-page.js';
import type { Queryable } from './postgres-queries.js';
import type { FeedEntry, StoreFeed } from './store.js';

/**
 * The PostgreSQL store's `feed` after the cursor was fixed (every revision up to `cursor` is
 * committed): each table's oldest rows in (since, cursor], merged into one page.
 */
export async function readFeed(db: Queryable, since: number, cursor: number, limit: number): Promise<StoreFeed> {
  // One row more than a page from each table: a table with more rows than fit must cut the page.
  const perTable = limit + 1;
  const rows = async (table: string) => {
    const { rows } = await db.query<{ rev: string; data: unknown }>(
      `SELECT rev, data FROM ${table} WHERE rev > $1 AND rev <= $2 ORDER BY rev LIMIT $3`,
      [since, cursor, perTable],
    );
    return rows.map((row) => ({ rev: Number(row.rev), data: row.data }));
  };
  const removed = async (): Promise<FeedEntry[]> => {
    const { rows } = await db.query<{ rev: string; id: string; message_id: string; session_id: string }>(
      'SELECT rev, id, message_id, session_id FROM part_removed WHERE rev > $1 AND rev <= $2 ORDER BY rev LIMIT $3',
      [since, cursor, perTable],
    );
    return rows.map((row) => ({ rev: Number(row.rev), kind: 'part-removed', partID: row.id, messageID: row.message_id, sessionID: row.session_id }));
  };
  const tables = await Promise.all([
    rows('session').then((list) => list.map(({ rev, data }): FeedEntry => ({ rev, kind: 'session', session: Session.parse(data) }))),
    rows('message').then((list) => list.map(({ rev, data }): FeedEntry => ({ rev, kind: 'message', message: Message.parse(data) }))),
    rows('part').then((list) => list.map(({ rev, data }): FeedEntry => ({ rev, kind: 'part', part: Part.parse(data) }))),
    rows('permission_request').then((list) =>
      list.map(({ rev, data }): FeedEntry => ({ rev, kind: 'permission', request: PermissionRequestRecord.parse(data) })),
    ),
    rows('batch').then((list) => list.map(({ rev, data }): FeedEntry => ({ rev, kind: 'batch', batch: BatchRecord.parse(data) }))),
    removed(),
  ]);
  return feedPage(cursor, tables, limit);
}
