import { Session } from '../../../core/session.js';
import type { SessionRows } from '../sessions.js';
import { all, one, type Queryable } from './documents.js';
import type { PostgresTransactions } from './transaction.js';

export function postgresSessionRows(db: PostgresTransactions): SessionRows {
  return {
    async upsert(session) {
      await db.revisioned(
        (client) => upsertSession(client, session),
        () => session.id,
      );
    },
    async modify(id, change) {
      await db.revisioned(
        async (client) =>
          upsertSession(
            client,
            change(await one(client, 'SELECT data FROM session WHERE id = $1 FOR UPDATE', [id], Session)),
          ),
        () => id,
      );
    },
    get: (id) => one(db.pool, 'SELECT data FROM session WHERE id = $1', [id], Session),
    list: ({ roots, directory, limit }) =>
      all(
        db.pool,
        `SELECT data FROM session WHERE ($1::boolean IS NOT TRUE OR parent_id IS NULL) AND ($2::text IS NULL OR data->>'directory' = $2)
         ORDER BY time_updated DESC, id DESC LIMIT $3`,
        [roots ?? false, directory ?? null, limit ?? null],
        Session,
      ),
    children: (parentID) =>
      all(db.pool, 'SELECT data FROM session WHERE parent_id = $1 ORDER BY id', [parentID], Session),
  };
}

/** Must run inside a `revisioned` transaction. */
async function upsertSession(client: Queryable, session: Session): Promise<void> {
  await client.query(
    `INSERT INTO session (id, parent_id, time_updated, rev, data) VALUES ($1, $2, $3, nextval('revision'), $4::jsonb)
     ON CONFLICT (id) DO UPDATE SET parent_id = excluded.parent_id, time_updated = excluded.time_updated, rev = excluded.rev, data = excluded.data`,
    [session.id, session.parentID ?? null, session.time.updated, JSON.stringify(session)],
  );
}
