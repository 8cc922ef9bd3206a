import { Session } from '../../../core/records/session.js';
import type { SessionRows } from '../sessions.js';
import { all, one } from './documents.js';
import type { PostgresTransactions } from './transaction.js';

export function postgresSessionRows(db: PostgresTransactions): SessionRows {
  return {
    async upsert(session) {
      await db.write(session.id, UPSERT, columns(session));
    },
    async modify(id, change) {
      // Read, change, and write only if the session is still as read, else again (see parts.ts).
      for (;;) {
        const { rows } = await db.pool.query<{ rev: string; data: unknown }>(
          'SELECT rev, data FROM session WHERE id = $1',
          [id],
        );
        const found = rows[0];
        const next = change(found ? Session.parse(found.data) : undefined);
        const rev = found
          ? await db.write(id, REPLACE, [...columns(next), found.rev])
          : await db.write(id, CREATE, columns(next));
        if (rev !== undefined) return;
      }
    },
    get: (id) => one(db.pool, 'SELECT data FROM session WHERE id = $1', [id], Session),
    list: ({ roots, directory, limit }) =>
      all(
        db.pool,
        `SELECT data FROM session WHERE ($1::boolean IS NOT TRUE OR parent_id IS NULL) AND ($2::text IS NULL OR coalesce(data->>'project', data->>'directory') = $2)
         ORDER BY time_updated DESC, id DESC LIMIT $3`,
        [roots ?? false, directory ?? null, limit ?? null],
        Session,
      ),
    children: (parentId) =>
      all(db.pool, 'SELECT data FROM session WHERE parent_id = $1 ORDER BY id', [parentId], Session),
    async remove(id) {
      await db.revisioned(
        id,
        async (client) => {
          const session = await one(client, 'SELECT data FROM session WHERE id = $1 FOR UPDATE', [id], Session);
          if (!session) return false;
          for (const sql of DELETE_OF_SESSION) await client.query(sql, [id]);
          await client.query(
            `INSERT INTO session_removed (id, rev, data) VALUES ($1, nextval('revision'), $2::jsonb)
             ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, data = excluded.data`,
            [id, JSON.stringify(session)],
          );
          return true;
        },
        (removed) => removed,
      );
    },
  };
}

/** Everything kept of one session, by the column that names it; the session row goes last. */
const DELETE_OF_SESSION = [
  'DELETE FROM part WHERE session_id = $1',
  'DELETE FROM part_removed WHERE session_id = $1',
  'DELETE FROM message WHERE session_id = $1',
  'DELETE FROM message_removed WHERE session_id = $1',
  'DELETE FROM todo WHERE session_id = $1',
  'DELETE FROM file_read WHERE session_id = $1',
  'DELETE FROM permission_request WHERE session_id = $1',
  'DELETE FROM approved_rule WHERE root_id = $1',
  'DELETE FROM prompt WHERE session_id = $1',
  'DELETE FROM budget WHERE owner_id = $1',
  'DELETE FROM session WHERE id = $1',
];

/** A session's parent, time updated and document: `$2` to `$4` after its id, the subject of the write. */
const columns = (session: Session) => [session.parentID ?? null, session.time.updated, JSON.stringify(session)];

const UPSERT = `INSERT INTO session (id, parent_id, time_updated, rev, data)
  SELECT $1, $2, $3, nextval('revision'), $4::jsonb FROM locked
  ON CONFLICT (id) DO UPDATE SET parent_id = excluded.parent_id, time_updated = excluded.time_updated, rev = excluded.rev, data = excluded.data
  RETURNING rev`;
/** Writes the session only if it is still missing. */
const CREATE = `INSERT INTO session (id, parent_id, time_updated, rev, data)
  SELECT $1, $2, $3, nextval('revision'), $4::jsonb FROM locked
  ON CONFLICT (id) DO NOTHING
  RETURNING rev`;
/** Writes the session only if its revision is still `$5`. */
const REPLACE = `UPDATE session SET parent_id = $2, time_updated = $3, rev = nextval('revision'), data = $4::jsonb FROM locked
  WHERE id = $1 AND rev = $5
  RETURNING session.rev`;
