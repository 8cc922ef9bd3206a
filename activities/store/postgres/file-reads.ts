import type { FileReadTimes } from '../file-reads.js';
import type { PostgresTransactions } from './transaction.js';

export function postgresFileReadTimes({ pool }: PostgresTransactions): FileReadTimes {
  return {
    async recordFileRead(sessionId, path, mtimeMs) {
      await pool.query(
        `INSERT INTO file_read (session_id, path, mtime) VALUES ($1, $2, $3)
         ON CONFLICT (session_id, path) DO UPDATE SET mtime = excluded.mtime`,
        [sessionId, path, mtimeMs],
      );
    },
    async fileReadMtime(sessionId, path) {
      const { rows } = await pool.query<{ mtime: number }>(
        'SELECT mtime FROM file_read WHERE session_id = $1 AND path = $2',
        [sessionId, path],
      );
      return rows[0]?.mtime;
    },
  };
}
