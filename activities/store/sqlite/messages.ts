import { Message } from '../../../core/records/message.js';
import { Part } from '../../../core/records/part.js';
import type { MessageRows } from '../messages.js';
import type { UsageSums } from '../usage.js';
import type { SqliteConnection } from './connection.js';
import { readAll, readOne } from './documents.js';

export function sqliteMessageRows(connection: SqliteConnection): MessageRows {
  const { db } = connection;
  const statements = {
    upsert: db.prepare(
      `INSERT INTO message (id, session_id, rev, data) VALUES (@id, @session, @rev, @data)
       ON CONFLICT(id) DO UPDATE SET rev = excluded.rev, data = excluded.data`,
    ),
    get: db.prepare('SELECT data FROM message WHERE id = ?'),
    messages: db.prepare('SELECT data FROM message WHERE session_id = ? AND id >= ? ORDER BY id'),
    parts: db.prepare('SELECT data FROM part WHERE session_id = ? AND message_id >= ? ORDER BY id'),
    compactionRequests: db
      .prepare(
        `SELECT message_id FROM part WHERE session_id = ? AND json_extract(data, '$.type') = 'compaction' ORDER BY id DESC LIMIT 20`,
      )
      .pluck(),
    summaryAfter: db.prepare(
      `SELECT data FROM message WHERE session_id = ? AND id > ? AND json_extract(data, '$.summary') = 1 ORDER BY id LIMIT 1`,
    ),
    recentAssistant: db.prepare(
      `SELECT data FROM message WHERE session_id = ? AND json_extract(data, '$.role') = 'assistant' ORDER BY id DESC LIMIT 20`,
    ),
    usage: db.prepare(
      `SELECT IFNULL(SUM(json_extract(data, '$.tokens.input')), 0) AS input,
              IFNULL(SUM(json_extract(data, '$.tokens.output')), 0) AS output,
              IFNULL(SUM(json_extract(data, '$.tokens.reasoning')), 0) AS reasoning,
              IFNULL(SUM(json_extract(data, '$.tokens.cache.read')), 0) AS cacheRead,
              IFNULL(SUM(json_extract(data, '$.tokens.cache.write')), 0) AS cacheWrite,
              IFNULL(SUM(json_extract(data, '$.cost')), 0) AS cost
       FROM message WHERE session_id = ? AND json_extract(data, '$.role') = 'assistant'`,
    ),
    partsOf: db.prepare('SELECT id FROM part WHERE session_id = ? AND message_id = ? ORDER BY id').pluck(),
    partRemoved: db.prepare(
      `INSERT INTO part_removed (id, message_id, session_id, rev) VALUES (?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET rev = excluded.rev`,
    ),
    deleteParts: db.prepare('DELETE FROM part WHERE session_id = ? AND message_id = ?'),
    deleteMessage: db.prepare('DELETE FROM message WHERE session_id = ? AND id = ?'),
    messageRemoved: db.prepare(
      `INSERT INTO message_removed (id, session_id, rev) VALUES (?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET rev = excluded.rev`,
    ),
  };

  return {
    async upsert(message) {
      connection.write(() =>
        statements.upsert.run({
          id: message.id,
          session: message.sessionID,
          rev: connection.revision(),
          data: JSON.stringify(message),
        }),
      );
      connection.written(message.sessionID);
    },
    get: async (id) => readOne(statements.get, [id], Message),
    withParts: async (sessionId, since) =>
      db.transaction(() => ({
        messages: readAll(statements.messages, [sessionId, since], Message),
        parts: readAll(statements.parts, [sessionId, since], Part),
      }))(),
    compactionRequests: async (sessionId) => statements.compactionRequests.all(sessionId) as string[],
    summaryAfter: async (sessionId, messageId) => readOne(statements.summaryAfter, [sessionId, messageId], Message),
    recentAssistant: async (sessionId) => readAll(statements.recentAssistant, [sessionId], Message),
    usage: async (sessionId) => statements.usage.get(sessionId) as UsageSums,
    async remove(sessionId, messageIds) {
      const removed = connection.write(() => {
        let any = false;
        for (const messageId of messageIds) {
          // Followers learn of each removal at its own revision: the parts, then their message.
          for (const partId of statements.partsOf.all(sessionId, messageId) as string[])
            statements.partRemoved.run(partId, messageId, sessionId, connection.revision());
          any = statements.deleteParts.run(sessionId, messageId).changes > 0 || any;
          if (statements.deleteMessage.run(sessionId, messageId).changes > 0) {
            statements.messageRemoved.run(messageId, sessionId, connection.revision());
            any = true;
          }
        }
        return any;
      });
      if (removed) connection.written(sessionId);
    },
  };
}
