import { Part } from '../../../core/records/part.js';
import type { PartRows } from '../parts.js';
import { all, one } from './documents.js';
import type { PostgresTransactions } from './transaction.js';
import { WrittenParts } from './written-parts.js';

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
  const written = new WrittenParts();
  /** Writes `part` with `statement` (`$2` its id, then `values`); true when it did. */
  const write = async (sessionId: string, part: Part, statement: string, values: (json: string) => unknown[]) => {
    const json = JSON.stringify(part);
    const rev = await db.write(sessionId, statement, [part.id, ...values(json)]);
    if (rev === undefined) return false;
    written.remember(part.id, sessionId, json, rev);
    return true;
  };
  return {
    ofMessage: (messageId) =>
      all(db.pool, 'SELECT data FROM part WHERE message_id = $1 ORDER BY id', [messageId], Part),
    async upsert(part) {
      await write(part.sessionID, part, UPSERT, (json) => [part.messageID, json]);
    },
    async modify(id, change) {
      // Change the part as this store last wrote it, and write that only if no one wrote it since.
      const known = written.get(id);
      if (known) {
        const next = { ...change(known.part()), id };
        if (await write(known.sessionID, next, REPLACE, (json) => [json, known.rev])) return next;
        written.forget(id);
      }
      // Else read, change, and write only if the part is still as read, else again: the second of
      // two writers at once (on any machine) gets the first one's result as its `current`.
      for (;;) {
        const { rows } = await db.pool.query<{ rev: string; session_id: string; data: unknown }>(
          'SELECT rev, session_id, data FROM part WHERE id = $1',
          [id],
        );
        const found = rows[0];
        const next = { ...change(found ? Part.parse(found.data) : undefined), id };
        const done = found
          ? await write(found.session_id, next, REPLACE, (json) => [json, found.rev])
          : await write(next.sessionID, next, CREATE, (json) => [next.messageID, json]);
        if (done) return next;
      }
    },
    get: (id) => one(db.pool, 'SELECT data FROM part WHERE id = $1', [id], Part),
    async deleteOfMessage(messageId) {
      // Almost always there is nothing to delete (the first attempt of a model call): one read then.
      const { rows } = await db.pool.query<{ session_id: string }>(
        'SELECT session_id FROM part WHERE message_id = $1 LIMIT 1',
        [messageId],
      );
      if (rows.length === 0) return;
      // Followers of the event stream learn of each removal, each at its own revision.
      await db.write(
        rows[0].session_id,
        `INSERT INTO part_removed (id, message_id, session_id, rev)
         SELECT id, message_id, session_id, nextval('revision') FROM gone
         ON CONFLICT (id) DO UPDATE SET rev = excluded.rev
         RETURNING rev`,
        [messageId],
        'gone AS (DELETE FROM part USING locked WHERE message_id = $2 AND session_id = $1 RETURNING id, message_id, session_id)',
      );
    },
  };
}
