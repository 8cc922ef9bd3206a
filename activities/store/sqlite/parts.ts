import { Part } from '../../../core/records/part.js';
import type { PartRows } from '../parts.js';
import type { SqliteConnection } from './connection.js';
import { readAll, readOne } from './documents.js';

export function sqlitePartRows(connection: SqliteConnection): PartRows {
  const { db } = connection;
  const statements = {
    ofMessage: db.prepare('SELECT data FROM part WHERE message_id = ? ORDER BY id'),
    upsert: db.prepare(
      `INSERT INTO part (id, message_id, session_id, rev, data) VALUES (@id, @message, @session, @rev, @data)
       ON CONFLICT(id) DO UPDATE SET rev = excluded.rev, data = excluded.data`,
    ),
    get: db.prepare('SELECT data FROM part WHERE id = ?'),
    delete: db.prepare('DELETE FROM part WHERE message_id = ?'),
    removed: db.prepare(
      `INSERT INTO part_removed (id, message_id, session_id, rev) VALUES (@id, @message, @session, @rev)
       ON CONFLICT(id) DO UPDATE SET rev = excluded.rev`,
    ),
  };
  const write = (part: Part) =>
    statements.upsert.run({
      id: part.id,
      message: part.messageID,
      session: part.sessionID,
      rev: connection.revision(),
      data: JSON.stringify(part),
    });

  return {
    ofMessage: async (messageId) => readAll(statements.ofMessage, [messageId], Part),
    async upsert(part) {
      connection.write(() => write(part));
      connection.written(part.sessionID);
    },
    async modify(id, change) {
      const next = connection.write(() => {
        const next = change(readOne(statements.get, [id], Part));
        write(next);
        return next;
      });
      connection.written(next.sessionID);
      return next;
    },
    get: async (id) => readOne(statements.get, [id], Part),
    async deleteOfMessage(messageId) {
      const sessionId = connection.write(() => {
        const parts = readAll(statements.ofMessage, [messageId], Part);
        // Followers of the event stream learn of each removal, each at its own revision.
        for (const part of parts)
          statements.removed.run({
            id: part.id,
            message: messageId,
            session: part.sessionID,
            rev: connection.revision(),
          });
        statements.delete.run(messageId);
        return parts[0]?.sessionID;
      });
      if (sessionId) connection.written(sessionId);
    },
  };
}
