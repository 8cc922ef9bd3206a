import type Database from 'better-sqlite3';

type Schema<T> = { parse(value: unknown): T };

/** The `data` document of the first row, validated; undefined when there is no row. */
export function readOne<T>(statement: Database.Statement, args: unknown[], schema: Schema<T>): T | undefined {
  const row = statement.get(...args) as { data: string } | undefined;
  return row ? schema.parse(JSON.parse(row.data)) : undefined;
}

/** The `data` document of every row, validated. */
export function readAll<T>(statement: Database.Statement, args: unknown[], schema: Schema<T>): T[] {
  return (statement.all(...args) as { data: string }[]).map((row) => schema.parse(JSON.parse(row.data)));
}
