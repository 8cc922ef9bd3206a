import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { SqliteChangeWatcher } from './change-watcher.js';
import { migrateSqlite } from './migrations.js';

/** One SQLite file in WAL mode, shared by the worker and the CLI, and the waiters for its changes. */
export class SqliteConnection {
  readonly db: Database.Database;
  private readonly watcher: SqliteChangeWatcher;
  private readonly nextRevision: Database.Statement;

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 10000');
    migrateSqlite(this.db, file);
    this.nextRevision = this.db.prepare('UPDATE revision SET value = value + 1 WHERE id = 1 RETURNING value').pluck();
    this.watcher = new SqliteChangeWatcher(this.db);
  }

  /** Runs `work` in one transaction that takes the write lock at its start. */
  write<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  /** The next revision; only inside `write`. */
  revision(): number {
    return this.nextRevision.get() as number;
  }

  /** After a write commits: wakes the session's waiters (undefined: a batch, which no session follows). */
  written(sessionId: string | undefined): void {
    this.watcher.written(sessionId);
  }

  wait(...args: Parameters<SqliteChangeWatcher['wait']>): Promise<void> {
    return this.watcher.wait(...args);
  }

  close(): void {
    this.watcher.close();
    if (this.db.open) this.db.close();
  }
}
