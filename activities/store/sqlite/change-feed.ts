import { Message } from '../../../core/records/message.js';
import { Part } from '../../../core/records/part.js';
import type { ChangeFeedRows } from '../change-feed.js';
import type { FeedDocument, FeedTables } from '../feed-page.js';
import type { SqliteConnection } from './connection.js';
import { readAll } from './documents.js';

export function sqliteChangeFeedRows(connection: SqliteConnection): ChangeFeedRows {
  const { db } = connection;
  const after = (table: string) =>
    db.prepare(`SELECT rev, data FROM ${table} WHERE rev > ? AND rev <= ? ORDER BY rev LIMIT ?`);
  const statements = {
    cursor: db.prepare('SELECT value FROM revision WHERE id = 1').pluck(),
    messagesSince: db.prepare('SELECT data FROM message WHERE session_id = ? AND rev > ? ORDER BY id'),
    partsSince: db.prepare('SELECT data FROM part WHERE session_id = ? AND rev > ? ORDER BY id'),
    removedSince: db.prepare('SELECT id FROM part_removed WHERE session_id = ? AND rev > ? ORDER BY rev').pluck(),
    messagesRemovedSince: db
      .prepare('SELECT id FROM message_removed WHERE session_id = ? AND rev > ? ORDER BY rev')
      .pluck(),
    session: after('session'),
    message: after('message'),
    part: after('part'),
    permission: after('permission_request'),
    batch: after('batch'),
    removed: db.prepare(
      'SELECT rev, id, message_id, session_id FROM part_removed WHERE rev > ? AND rev <= ? ORDER BY rev LIMIT ?',
    ),
    messageRemoved: db.prepare(
      'SELECT rev, id, session_id FROM message_removed WHERE rev > ? AND rev <= ? ORDER BY rev LIMIT ?',
    ),
    sessionRemoved: after('session_removed'),
  };

  return {
    changes: async (sessionId, since) =>
      db.transaction(() => ({
        cursor: statements.cursor.get() as number,
        messages: readAll(statements.messagesSince, [sessionId, since], Message),
        parts: readAll(statements.partsSince, [sessionId, since], Part),
        removedParts: statements.removedSince.all(sessionId, since) as string[],
        removedMessages: statements.messagesRemovedSince.all(sessionId, since) as string[],
      }))(),
    tablesAfter: async (since, perTable) =>
      db.transaction(() => {
        const cursor = statements.cursor.get() as number;
        const rows = (
          name: 'session' | 'message' | 'part' | 'permission' | 'batch' | 'sessionRemoved',
        ): FeedDocument[] =>
          (statements[name].all(since, cursor, perTable) as { rev: number; data: string }[]).map((row) => ({
            rev: row.rev,
            data: JSON.parse(row.data),
          }));
        const tables: FeedTables = {
          session: rows('session'),
          message: rows('message'),
          part: rows('part'),
          permission: rows('permission'),
          batch: rows('batch'),
          removed: statements.removed.all(since, cursor, perTable) as FeedTables['removed'],
          messageRemoved: statements.messageRemoved.all(since, cursor, perTable) as FeedTables['messageRemoved'],
          sessionRemoved: rows('sessionRemoved'),
        };
        return { cursor, tables };
      })(),
    wait: (sessionId, since, options) => connection.wait(sessionId, since, options),
  };
}
