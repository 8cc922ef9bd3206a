import type pg from 'pg';
import { notifyChange } from './change-watcher.js';
import type { Queryable } from './documents.js';
import { LOCK_NAMESPACE, REVISION_LOCK } from './migrations.js';
import { REVISION_LOCKS, revisionedStatement } from './revisioned-statement.js';

/** The pool of a PostgreSQL store, and the transactions its writes and cursors run in. */
export class PostgresTransactions {
  constructor(readonly pool: pg.Pool) {}

  /** Runs `work` in one transaction on one connection. */
  async transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    // The pool listens for a checked-out client's errors no more: a server that goes away mid-
    // transaction would otherwise crash the process with an unhandled 'error' event.
    const markBroken = () => (broken = true);
    client.on('error', markBroken);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A connection that cannot even roll back (the server went away) is not given back to the pool.
      await client.query('ROLLBACK').catch(() => (broken = true));
      throw error;
    } finally {
      client.off('error', markBroken);
      client.release(broken);
    }
  }

  /**
   * One statement that writes rows of `subject` (a session, or a batch) at new revisions, takes the
   * revision locks first and announces the newest revision at commit: one round trip. `write` is
   * a data-modifying statement that reads `FROM locked`, gets the subject as `$1` and its own
   * values from `$2` on, and returns `rev`; `before`, queries it reads from (see
   * `revisionedStatement`). Resolves to the newest revision it took (as the driver gives a
   * BIGINT: text), or undefined when it wrote no row.
   */
  async write(subject: string, write: string, values: unknown[], before?: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ written: number; rev: string | null }>(
      revisionedStatement(write, before),
      [subject, ...values],
    );
    return rows[0].written > 0 ? (rows[0].rev ?? undefined) : undefined;
  }

  /**
   * A transaction of several statements that writes rows of `subject` with revisions, under the
   * same locks as `write`. `work` says whether it took a revision; if it did, the transaction's
   * NOTIFY, delivered at commit, wakes the subject's followers (`waitForChange`) on every machine.
   */
  async revisioned<T>(subject: string, work: (client: Queryable) => Promise<T>, wrote: (result: T) => boolean) {
    return this.transaction(async (client) => {
      await client.query(`SELECT 1 FROM (${REVISION_LOCKS}) AS locked`, [subject]);
      const result = await work(client);
      if (wrote(result)) await notifyChange(client, subject);
      return result;
    });
  }

  /** The newest revision once every writer that took a smaller one has committed or rolled back. */
  async committedCursor(): Promise<number> {
    // Waiting for the exclusive lock waits out every open writer; the sequence is read, row by row
    // of what the lock's subquery returns, once it is held (and the lock goes with the statement).
    const { rows } = await this.pool.query<{ value: string }>(
      `SELECT COALESCE(pg_sequence_last_value('revision'), 0) AS value FROM (SELECT pg_advisory_xact_lock($1, $2)) AS locked`,
      [LOCK_NAMESPACE, REVISION_LOCK],
    );
    return Number(rows[0].value);
  }
}
