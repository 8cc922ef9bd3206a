import { Message } from '../../../core/message.js';
import { Part } from '../../../core/part.js';
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
    withParts: async (sessionID, since) =>
      db.transaction(() => ({
        messages: readAll(statements.messages, [sessionID, since], Message),
        parts: readAll(statements.parts, [sessionID, since], Part),
      }))(),
    compactionRequests: async (sessionID) => statements.compactionRequests.all(sessionID) as string[],
    summaryAfter: async (sessionID, messageID) => readOne(statements.summaryAfter, [sessionID, messageID], Message),
    recentAssistant: async (sessionID) => readAll(statements.recentAssistant, [sessionID], Message),
    usage: async (sessionID) => statements.usage.get(sessionID) as UsageSums,
    async remove(sessionID, messageIDs) {
      const removed = connection.write(() => {
        let any = false;
        for (const messageID of messageIDs) {
          // Followers learn of each removal at its own revision: the parts, then their message.
          for (const partID of statements.partsOf.all(sessionID, messageID) as string[])
            statements.partRemoved.run(partID, messageID, sessionID, connection.revision());
          any = statements.deleteParts.run(sessionID, messageID).changes > 0 || any;
          if (statements.deleteMessage.run(sessionID, messageID).changes > 0) {
            statements.messageRemoved.run(messageID, sessionID, connection.revision());
            any = true;
          }
        }
        return any;
      });
      if (removed) connection.written(sessionID);
    },
  };
}
