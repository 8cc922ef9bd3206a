import type pg from 'pg';

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
