import { postgresBudgetRows } from './budgets.js';
import { ComposedStore } from '../composed-store.js';
import { postgresBatchRows } from './batches.js';
import { postgresChangeFeedRows } from './change-feed.js';
import { PostgresChangeWatcher } from './change-watcher.js';
import { connectPostgres, type ConnectOptions } from './connection.js';
import { postgresFileReadTimes } from './file-reads.js';
import { postgresMessageRows } from './messages.js';
import { postgresPartRows } from './parts.js';
import { postgresPermissionRows } from './permissions.js';
import { postgresPromptRows } from './prompts.js';
import { postgresRateLimitRows } from './rate-limits.js';
import { postgresSessionRows } from './sessions.js';
import { postgresTodoRows } from './todos.js';
import { PostgresTransactions } from './transaction.js';
import { postgresWorkspaceConfigRows } from './workspace-configs.js';
import { postgresConfigTrustRows } from './config-trust.js';

/** The store for several machines: one PostgreSQL database shared by every worker and CLI. */
export class PostgresSessionStore extends ComposedStore {
  private closed = false;

  private constructor(
    private readonly db: PostgresTransactions,
    private readonly watcher: PostgresChangeWatcher,
    /** Where the database is (no password), for messages. */
    readonly location: string,
  ) {
    super({
      sessions: postgresSessionRows(db),
      messages: postgresMessageRows(db),
      parts: postgresPartRows(db),
      changeFeed: postgresChangeFeedRows(db, watcher),
      fileReads: postgresFileReadTimes(db),
      budgets: postgresBudgetRows(db),
      batches: postgresBatchRows(db),
      prompts: postgresPromptRows(db),
      todos: postgresTodoRows(db),
      permissions: postgresPermissionRows(db),
      workspaceConfigs: postgresWorkspaceConfigRows(db),
      configTrust: postgresConfigTrustRows(db),
      rateLimits: postgresRateLimitRows(db),
    });
  }

  /** Connects, and creates or upgrades the schema (once, under a lock, whoever else is starting). */
  static async open(url: string, options: ConnectOptions = {}): Promise<PostgresSessionStore> {
    const { pool, display } = await connectPostgres(url, options);
    return new PostgresSessionStore(new PostgresTransactions(pool), new PostgresChangeWatcher(url, pool), display);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.watcher.close();
    await this.db.pool.end();
  }
}
