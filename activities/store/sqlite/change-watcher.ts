import type Database from 'better-sqlite3';
import { ChangeWaiters } from '../change-waiters.js';
import type { WaitOptions } from '../change-feed.js';

/** How often waiters look for writes made by other processes (a worker beside the CLI). */
export const SQLITE_POLL_MS = 150;

/**
 * `waitForChange` for the SQLite store. Writes through the same store object wake their session's
 * waiters at once; writes by other processes on the same file are found by a poll that reads the
 * one-row revision counter and looks at the sessions only when it moved.
 */
export class SqliteChangeWatcher {
  private readonly waiters = new ChangeWaiters();
  private readonly statements;
  private poll: NodeJS.Timeout | undefined;
  private lastRevision = -1;

  constructor(
    private readonly db: Database.Database,
    private readonly pollMs = SQLITE_POLL_MS,
  ) {
    this.statements = {
      revision: db.prepare('SELECT value FROM revision WHERE id = 1').pluck(),
      changedSince: db
        .prepare(
          `SELECT EXISTS (SELECT 1 FROM message WHERE session_id = @session AND rev > @since)
               OR EXISTS (SELECT 1 FROM part WHERE session_id = @session AND rev > @since)
               OR EXISTS (SELECT 1 FROM session WHERE id = @session AND rev > @since)
               OR EXISTS (SELECT 1 FROM permission_request WHERE session_id = @session AND rev > @since)
               OR EXISTS (SELECT 1 FROM part_removed WHERE session_id = @session AND rev > @since)
               OR EXISTS (SELECT 1 FROM message_removed WHERE session_id = @session AND rev > @since)
               OR EXISTS (SELECT 1 FROM session_removed WHERE id = @session AND rev > @since)`,
        )
        .pluck(),
    };
  }

  /** Waits for a change of one session, or of anything in the store when `sessionID` is undefined. */
  wait(sessionId: string | undefined, since: number, options: WaitOptions): Promise<void> {
    if (!this.db.open || this.changedSince(sessionId, since)) return Promise.resolve();
    const waiter = this.waiters.add(sessionId, since, options);
    this.poll ??= setInterval(() => this.look(), this.pollMs).unref();
    return waiter.settled;
  }

  /** Called after a write through this store commits (undefined: a batch, which no session follows). */
  written(sessionId: string | undefined): void {
    this.waiters.wakeSession(sessionId);
  }

  close(): void {
    this.stopPolling();
    this.waiters.wakeAll();
  }

  private look(): void {
    try {
      const revision = this.statements.revision.get() as number;
      if (revision !== this.lastRevision) {
        this.lastRevision = revision;
        for (const waiter of this.waiters.list()) if (this.changedSince(waiter.sessionID, waiter.since)) waiter.wake();
      }
    } catch {
      // The file went away or is locked for longer than the busy timeout: let callers look themselves.
      this.waiters.wakeAll();
    }
    if (this.waiters.size === 0) this.stopPolling();
  }

  private changedSince(sessionId: string | undefined, since: number): boolean {
    if (sessionId === undefined) return (this.statements.revision.get() as number) > since;
    return this.statements.changedSince.get({ session: sessionId, since }) === 1;
  }

  private stopPolling(): void {
    clearInterval(this.poll);
    this.poll = undefined;
  }
}
