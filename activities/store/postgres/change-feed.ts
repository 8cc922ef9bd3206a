import { Message } from '../../../core/records/message.js';
import { Part } from '../../../core/records/part.js';
import type { ChangeFeedRows } from '../change-feed.js';
import type { FeedTables } from '../feed-page.js';
import type { PostgresChangeWatcher } from './change-watcher.js';
import type { PostgresTransactions } from './transaction.js';

type ChangeRow = {
  kind: 'message' | 'part' | 'part_removed' | 'message_removed' | 'cursor';
  id: string | null;
  rev: string | null;
  data: unknown;
};

/**
 * A session's rows newer than `$2`, and its cursor: the newest revision of any of its rows, read
 * from the same snapshot without a lock. Writers of one session take revisions one at a time
 * (revisioned-statement.ts), so every revision of the session up to that one is in the snapshot.
 * One statement, one round trip.
 */
const SESSION_CHANGES = `
  SELECT 'message' AS kind, id, rev, data FROM message WHERE session_id = $1 AND rev > $2
  UNION ALL SELECT 'part', id, rev, data FROM part WHERE session_id = $1 AND rev > $2
  UNION ALL SELECT 'part_removed', id, rev, NULL FROM part_removed WHERE session_id = $1 AND rev > $2
  UNION ALL SELECT 'message_removed', id, rev, NULL FROM message_removed WHERE session_id = $1 AND rev > $2
  UNION ALL SELECT 'cursor', NULL, GREATEST(
    (SELECT max(rev) FROM message WHERE session_id = $1),
    (SELECT max(rev) FROM part WHERE session_id = $1),
    (SELECT max(rev) FROM part_removed WHERE session_id = $1),
    (SELECT max(rev) FROM message_removed WHERE session_id = $1),
    (SELECT rev FROM session WHERE id = $1),
    (SELECT max(rev) FROM permission_request WHERE session_id = $1),
    (SELECT rev FROM session_removed WHERE id = $1)), NULL`;

export function postgresChangeFeedRows(db: PostgresTransactions, watcher: PostgresChangeWatcher): ChangeFeedRows {
  return {
    async changes(sessionId, since) {
      const { rows } = await db.pool.query<ChangeRow>(SESSION_CHANGES, [sessionId, since]);
      const of = (kind: ChangeRow['kind']) => rows.filter((row) => row.kind === kind);
      // Messages and parts in id order (code units, as the "C" collation), removals in revision order.
      const byId = (a: ChangeRow, b: ChangeRow) => (a.id! < b.id! ? -1 : a.id! > b.id! ? 1 : 0);
      const byRev = (a: ChangeRow, b: ChangeRow) => Number(a.rev) - Number(b.rev);
      return {
        cursor: Number(of('cursor')[0]?.rev ?? 0),
        messages: of('message')
          .sort(byId)
          .map((row) => Message.parse(row.data)),
        parts: of('part')
          .sort(byId)
          .map((row) => Part.parse(row.data)),
        removedParts: of('part_removed')
          .sort(byRev)
          .map((row) => row.id!),
        removedMessages: of('message_removed')
          .sort(byRev)
          .map((row) => row.id!),
      };
    },
    async tablesAfter(since, perTable) {
      // Every revision up to the cursor is committed, so no row below it can still appear.
      const cursor = await db.committedCursor();
      const rows = async (table: string) => {
        const { rows } = await db.pool.query<{ rev: string; data: unknown }>(
          `SELECT rev, data FROM ${table} WHERE rev > $1 AND rev <= $2 ORDER BY rev LIMIT $3`,
          [since, cursor, perTable],
        );
        return rows.map((row) => ({ rev: Number(row.rev), data: row.data }));
      };
      const removed = async () => {
        const { rows } = await db.pool.query<{ rev: string; id: string; message_id: string; session_id: string }>(
          'SELECT rev, id, message_id, session_id FROM part_removed WHERE rev > $1 AND rev <= $2 ORDER BY rev LIMIT $3',
          [since, cursor, perTable],
        );
        return rows.map((row) => ({ ...row, rev: Number(row.rev) }));
      };
      const messageRemoved = async () => {
        const { rows } = await db.pool.query<{ rev: string; id: string; session_id: string }>(
          'SELECT rev, id, session_id FROM message_removed WHERE rev > $1 AND rev <= $2 ORDER BY rev LIMIT $3',
          [since, cursor, perTable],
        );
        return rows.map((row) => ({ ...row, rev: Number(row.rev) }));
      };
      const [session, message, part, permission, batch, removedParts, removedMessages, removedSessions] =
        await Promise.all([
          rows('session'),
          rows('message'),
          rows('part'),
          rows('permission_request'),
          rows('batch'),
          removed(),
          messageRemoved(),
          rows('session_removed'),
        ]);
      const tables: FeedTables = {
        session,
        message,
        part,
        permission,
        batch,
        removed: removedParts,
        messageRemoved: removedMessages,
        sessionRemoved: removedSessions,
      };
      return { cursor, tables };
    },
    wait: (sessionId, since, options) => watcher.wait(sessionId, since, options),
  };
}
