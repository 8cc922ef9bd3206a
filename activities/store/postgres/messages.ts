import { Message } from '../../../core/records/message.js';
import { Part } from '../../../core/records/part.js';
import type { MessageRows } from '../messages.js';
import type { UsageSums } from '../usage.js';
import { all, one } from './documents.js';
import type { PostgresTransactions } from './transaction.js';

export function postgresMessageRows(db: PostgresTransactions): MessageRows {
  return {
    async upsert(message) {
      await db.write(
        message.sessionID,
        `INSERT INTO message (id, session_id, rev, data) SELECT $2, $1, nextval('revision'), $3::jsonb FROM locked
         ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, data = excluded.data
         RETURNING rev`,
        [message.id, JSON.stringify(message)],
      );
    },
    get: (id) => one(db.pool, 'SELECT data FROM message WHERE id = $1', [id], Message),
    // One snapshot for both reads, so no part appears without its message.
    withParts: (sessionId, since) =>
      db.transaction(async (client) => {
        await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
        return {
          messages: await all(
            client,
            'SELECT data FROM message WHERE session_id = $1 AND id >= $2 ORDER BY id',
            [sessionId, since],
            Message,
          ),
          parts: await all(
            client,
            'SELECT data FROM part WHERE session_id = $1 AND message_id >= $2 ORDER BY id',
            [sessionId, since],
            Part,
          ),
        };
      }),
    async compactionRequests(sessionId) {
      const { rows } = await db.pool.query<{ message_id: string }>(
        `SELECT message_id FROM part WHERE session_id = $1 AND data->>'type' = 'compaction' ORDER BY id DESC LIMIT 20`,
        [sessionId],
      );
      return rows.map((row) => row.message_id);
    },
    summaryAfter: (sessionId, messageId) =>
      one(
        db.pool,
        `SELECT data FROM message WHERE session_id = $1 AND id > $2 AND data->'summary' = 'true'::jsonb ORDER BY id LIMIT 1`,
        [sessionId, messageId],
        Message,
      ),
    recentAssistant: (sessionId) =>
      all(
        db.pool,
        `SELECT data FROM message WHERE session_id = $1 AND data->>'role' = 'assistant' ORDER BY id DESC LIMIT 20`,
        [sessionId],
        Message,
      ),
    async usage(sessionId) {
      const sum = (path: string) => `COALESCE(SUM((data #>> '{${path}}')::float8), 0)`;
      const { rows } = await db.pool.query<UsageSums>(
        `SELECT ${sum('tokens,input')} AS input, ${sum('tokens,output')} AS output, ${sum('tokens,reasoning')} AS reasoning,
                ${sum('tokens,cache,read')} AS "cacheRead", ${sum('tokens,cache,write')} AS "cacheWrite", ${sum('cost')} AS cost
         FROM message WHERE session_id = $1 AND data->>'role' = 'assistant'`,
        [sessionId],
      );
      return rows[0];
    },
    async remove(sessionId, messageIds) {
      await db.revisioned(
        sessionId,
        async (client) => {
          // Followers learn of each removal at its own revision: the parts, then their messages.
          const parts = await client.query(
            `WITH gone AS (DELETE FROM part WHERE session_id = $1 AND message_id = ANY($2::text[]) RETURNING id, message_id, session_id)
             INSERT INTO part_removed (id, message_id, session_id, rev)
             SELECT id, message_id, session_id, nextval('revision') FROM (SELECT * FROM gone ORDER BY id) ordered
             ON CONFLICT (id) DO UPDATE SET rev = excluded.rev`,
            [sessionId, messageIds],
          );
          const messages = await client.query(
            `WITH gone AS (DELETE FROM message WHERE session_id = $1 AND id = ANY($2::text[]) RETURNING id, session_id)
             INSERT INTO message_removed (id, session_id, rev)
             SELECT id, session_id, nextval('revision') FROM (SELECT * FROM gone ORDER BY id) ordered
             ON CONFLICT (id) DO UPDATE SET rev = excluded.rev`,
            [sessionId, messageIds],
          );
          return (parts.rowCount ?? 0) + (messages.rowCount ?? 0) > 0;
        },
        (removed) => removed,
      );
    },
  };
}
