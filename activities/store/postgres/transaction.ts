import type pg from 'pg';
import { notifyChange } from './change-watcher.js';
import type { Queryable } from './documents.js';
import { LOCK_NAMESPACE, REVISION_LOCK } from './migrations.js';

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
   * A transaction that writes rows of one session with revisions. Its shared lock tells `changes`
   * that it is in flight: a sequence hands out revisions in order but commits land in any order,
   * so a reader fixes its cursor only when no writer holding a smaller revision is still open. Its
   * NOTIFY, delivered at commit, wakes the session's followers (`waitForChange`) on every machine.
   */
  async revisioned<T>(
    work: (client: Queryable) => Promise<T>,
    sessionOf: (result: T) => string | undefined,
  ): Promise<T> {
    return this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock_shared($1, $2)', [LOCK_NAMESPACE, REVISION_LOCK]);
      const result = await work(client);
      // Undefined: nothing took a revision, so there is nothing to announce.
      const sessionID = sessionOf(result);
      if (sessionID !== undefined) await notifyChange(client, sessionID);
      return result;
    });
  }

  /** The newest revision once every writer that took a smaller one has committed or rolled back. */
  async committedCursor(): Promise<number> {
    // Waiting for the exclusive lock waits out every open writer.
    return this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_NAMESPACE, REVISION_LOCK]);
      const { rows } = await client.query<{ value: string }>(
        'SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS value FROM revision',
      );
      return Number(rows[0].value);
    });
  }
}
