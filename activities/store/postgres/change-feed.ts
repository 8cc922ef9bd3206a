import { Message } from '../../../core/message.js';
import { Part } from '../../../core/part.js';
import type { ChangeFeedRows } from '../change-feed.js';
import type { FeedTables } from '../feed-page.js';
import type { PostgresChangeWatcher } from './change-watcher.js';
import { all } from './documents.js';
import type { PostgresTransactions } from './transaction.js';

export function postgresChangeFeedRows(db: PostgresTransactions, watcher: PostgresChangeWatcher): ChangeFeedRows {
  return {
    async changes(sessionID, since) {
      // Rows read after the cursor is fixed may be newer than it, which only means a follower sees
      // them twice (parts and messages are applied by id).
      const cursor = await db.committedCursor();
      return {
        cursor,
        messages: await all(
          db.pool,
          'SELECT data FROM message WHERE session_id = $1 AND rev > $2 ORDER BY id',
          [sessionID, since],
          Message,
        ),
        parts: await all(
          db.pool,
          'SELECT data FROM part WHERE session_id = $1 AND rev > $2 ORDER BY id',
          [sessionID, since],
          Part,
        ),
        removedParts: (
          await db.pool.query<{ id: string }>(
            'SELECT id FROM part_removed WHERE session_id = $1 AND rev > $2 ORDER BY rev',
            [sessionID, since],
          )
        ).rows.map((row) => row.id),
        removedMessages: (
          await db.pool.query<{ id: string }>(
            'SELECT id FROM message_removed WHERE session_id = $1 AND rev > $2 ORDER BY rev',
            [sessionID, since],
          )
        ).rows.map((row) => row.id),
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
    wait: (sessionID, since, options) => watcher.wait(sessionID, since, options),
  };
}
