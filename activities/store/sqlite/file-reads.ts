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
    async recordFileRead(sessionID, path, mtimeMs) {
      statements.record.run(sessionID, path, mtimeMs);
    },
    fileReadMtime: async (sessionID, path) => statements.mtime.get(sessionID, path) as number | undefined,
  };
}
