import { Part } from '../../../core/part.js';
import type { PartRows } from '../parts.js';
import { all, one, type Queryable } from './documents.js';
import type { PostgresTransactions } from './transaction.js';

export function postgresPartRows(db: PostgresTransactions): PartRows {
  return {
    ofMessage: (messageID) =>
      all(db.pool, 'SELECT data FROM part WHERE message_id = $1 ORDER BY id', [messageID], Part),
    async upsert(part) {
      await db.revisioned(
        (client) => upsertPart(client, part),
        () => part.sessionID,
      );
    },
    modify: (id, change) =>
      db.revisioned(
        async (client) => {
          // The row lock makes a second writer (on any machine) wait and then read this one's result.
          const next = change(await one(client, 'SELECT data FROM part WHERE id = $1 FOR UPDATE', [id], Part));
          await upsertPart(client, next);
          return next;
        },
        (part) => part.sessionID,
      ),
    get: (id) => one(db.pool, 'SELECT data FROM part WHERE id = $1', [id], Part),
    async deleteOfMessage(messageID) {
      // Almost always there is nothing to delete (the first attempt of a model call): one read then.
      const { rows } = await db.pool.query('SELECT 1 FROM part WHERE message_id = $1 LIMIT 1', [messageID]);
      if (rows.length === 0) return;
      await db.revisioned(
        async (client) => {
          // Followers of the event stream learn of each removal, each at its own revision.
          const { rows } = await client.query<{ session_id: string }>(
            `WITH gone AS (DELETE FROM part WHERE message_id = $1 RETURNING id, message_id, session_id)
             INSERT INTO part_removed (id, message_id, session_id, rev) SELECT id, message_id, session_id, nextval('revision') FROM gone
             ON CONFLICT (id) DO UPDATE SET rev = excluded.rev
             RETURNING session_id`,
            [messageID],
          );
          return rows[0]?.session_id;
        },
        (sessionID) => sessionID,
      );
    },
  };
}

/** Must run inside a `revisioned` transaction. */
async function upsertPart(client: Queryable, part: Part): Promise<void> {
  await client.query(
    `INSERT INTO part (id, message_id, session_id, rev, data) VALUES ($1, $2, $3, nextval('revision'), $4::jsonb)
     ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, data = excluded.data`,
    [part.id, part.messageID, part.sessionID, JSON.stringify(part)],
  );
}
