import { sqliteBudgetRows } from './budgets.js';
import { ComposedStore } from '../composed-store.js';
import { sqliteBatchRows } from './batches.js';
import { sqliteChangeFeedRows } from './change-feed.js';
import { SqliteConnection } from './connection.js';
import { sqliteFileReadTimes } from './file-reads.js';
import { sqliteMessageRows } from './messages.js';
import { sqlitePartRows } from './parts.js';
import { sqlitePermissionRows } from './permissions.js';
import { sqlitePromptRows } from './prompts.js';
import { sqliteRateLimitRows } from './rate-limits.js';
import { sqliteSessionRows } from './sessions.js';
import { sqliteTodoRows } from './todos.js';
import { sqliteWorkspaceConfigRows } from './workspace-configs.js';
import { sqliteConfigTrustRows } from './config-trust.js';

/** The embedded session store: one SQLite file in WAL mode, shared by the worker and the CLI. */
export class SqliteSessionStore extends ComposedStore {
  readonly file: string;
  private readonly connection: SqliteConnection;

  constructor(file: string) {
    const connection = new SqliteConnection(file);
    super({
      sessions: sqliteSessionRows(connection),
      messages: sqliteMessageRows(connection),
      parts: sqlitePartRows(connection),
      changeFeed: sqliteChangeFeedRows(connection),
      fileReads: sqliteFileReadTimes(connection),
      budgets: sqliteBudgetRows(connection),
      batches: sqliteBatchRows(connection),
      prompts: sqlitePromptRows(connection),
      todos: sqliteTodoRows(connection),
      permissions: sqlitePermissionRows(connection),
      workspaceConfigs: sqliteWorkspaceConfigRows(connection),
      configTrust: sqliteConfigTrustRows(connection),
      rateLimits: sqliteRateLimitRows(connection),
    });
    this.file = file;
    this.connection = connection;
  }

  async close(): Promise<void> {
    this.connection.close();
  }
}
