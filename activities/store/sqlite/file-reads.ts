import type { FileReadTimes } from '../file-reads.js';
import type { SqliteConnection } from './connection.js';

export function sqliteFileReadTimes({ db }: SqliteConnection): FileReadTimes {
  const statements = {
    record: db.prepare(
      `INSERT INTO file_read (session_id, path, mtime) VALUES (?, ?, ?)
       ON CONFLICT(session_id, path) DO UPDATE SET mtime = excluded.mtime`,
    ),
    mtime: db.prepare('SELECT mtime FROM file_read WHERE session_id = ? AND path = ?').pluck(),
  };
  return {
    async recordFileRead(sessionId, path, mtimeMs) {
      statements.record.run(sessionId, path, mtimeMs);
    },
    fileReadMtime: async (sessionId, path) => statements.mtime.get(sessionId, path) as number | undefined,
  };
}
