import type pg from 'pg';
import type { Part } from '../../core/part.js';
import type { Session } from '../../core/session.js';

/** A pool or one connection inside a transaction. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

type Schema<T> = { parse(value: unknown): T };

/** The `data` document of the first row, validated; undefined when there is no row. */
export async function one<T>(db: Queryable, sql: string, args: unknown[], schema: Schema<T>): Promise<T | undefined> {
  const { rows } = await db.query<{ data: unknown }>(sql, args);
  return rows[0] ? schema.parse(rows[0].data) : undefined;
}

/** The `data` document of every row, validated. */
export async function all<T>(db: Queryable, sql: string, args: unknown[], schema: Schema<T>): Promise<T[]> {
  const { rows } = await db.query<{ data: unknown }>(sql, args);
  return rows.map((row) => schema.parse(row.data));
}

/** Must run inside a transaction holding the shared revision lock (see `PostgresSessionStore.revisioned`). */
export async function upsertSession(db: Queryable, session: Session): Promise<void> {
  await db.query(
    `INSERT INTO session (id, parent_id, time_updated, rev, data) VALUES ($1, $2, $3, nextval('revision'), $4::jsonb)
     ON CONFLICT (id) DO UPDATE SET parent_id = excluded.parent_id, time_updated = excluded.time_updated, rev = excluded.rev, data = excluded.data`,
    [session.id, session.parentID ?? null, session.time.updated, JSON.stringify(session)],
  );
}

/** Must run inside a transaction holding the shared revision lock (see `PostgresSessionStore.revisioned`). */
export async function upsertPart(db: Queryable, part: Part): Promise<void> {
  await db.query(
    `INSERT INTO part (id, message_id, session_id, rev, data) VALUES ($1, $2, $3, nextval('revision'), $4::jsonb)
     ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, data = excluded.data`,
    [part.id, part.messageID, part.sessionID, JSON.stringify(part)],
  );
}
