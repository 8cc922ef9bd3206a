import { Message } from '../../../core/message.js';
import { Part } from '../../../core/part.js';
import type { MessageRows, UsageSums } from '../messages.js';
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
  };
}
