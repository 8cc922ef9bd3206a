import { Part } from '../../../core/part.js';
import type { PartRows } from '../parts.js';
import { all, one } from './documents.js';
import type { PostgresTransactions } from './transaction.js';

/** Writes a part at a new revision: `$1` its session, `$2` its id, `$3` its message, `$4` the document. */
const UPSERT = `INSERT INTO part (id, message_id, session_id, rev, data)
  SELECT $2, $3, $1, nextval('revision'), $4::jsonb FROM locked
  ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, data = excluded.data
  RETURNING rev`;
/** Writes a part only if it is still missing. */
const CREATE = `INSERT INTO part (id, message_id, session_id, rev, data)
  SELECT $2, $3, $1, nextval('revision'), $4::jsonb FROM locked
  ON CONFLICT (id) DO NOTHING
  RETURNING rev`;
/** Writes the document `$3` of part `$2` only if its revision is still `$4`. */
const REPLACE = `UPDATE part SET rev = nextval('revision'), data = $3::jsonb FROM locked
  WHERE id = $2 AND rev = $4
  RETURNING part.rev`;

export function postgresPartRows(db: PostgresTransactions): PartRows {
  const values = (part: Part) => [part.id, part.messageID, JSON.stringify(part)];
  return {
    ofMessage: (messageID) =>
      all(db.pool, 'SELECT data FROM part WHERE message_id = $1 ORDER BY id', [messageID], Part),
    async upsert(part) {
      await db.write(part.sessionID, UPSERT, values(part));
    },
    async modify(id, change) {
      // Read, change, and write only if the part is still as read, else again: two round trips,
      // and a second writer (on any machine) gets this one's result as its `current`.
      for (;;) {
        const { rows } = await db.pool.query<{ rev: string; session_id: string; data: unknown }>(
          'SELECT rev, session_id, data FROM part WHERE id = $1',
          [id],
        );
        const found = rows[0];
        const next = change(found ? Part.parse(found.data) : undefined);
        const written = found
          ? await db.write(found.session_id, REPLACE, [id, JSON.stringify(next), found.rev])
          : await db.write(next.sessionID, CREATE, values(next));
        if (written > 0) return next;
      }
    },
    get: (id) => one(db.pool, 'SELECT data FROM part WHERE id = $1', [id], Part),
    async deleteOfMessage(messageID) {
      // Almost always there is nothing to delete (the first attempt of a model call): one read then.
      const { rows } = await db.pool.query<{ session_id: string }>(
        'SELECT session_id FROM part WHERE message_id = $1 LIMIT 1',
        [messageID],
      );
      if (rows.length === 0) return;
      // Followers of the event stream learn of each removal, each at its own revision.
      await db.write(
        rows[0].session_id,
        `INSERT INTO part_removed (id, message_id, session_id, rev)
         SELECT id, message_id, session_id, nextval('revision') FROM gone
         ON CONFLICT (id) DO UPDATE SET rev = excluded.rev
         RETURNING rev`,
        [messageID],
        'gone AS (DELETE FROM part USING locked WHERE message_id = $2 AND session_id = $1 RETURNING id, message_id, session_id)',
      );
    },
  };
}
