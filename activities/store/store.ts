import type { BatchRecords } from './batches.js';
import type { BudgetRecords } from './budgets.js';
import type { ChangeFeed } from './change-feed.js';
import type { FileReadTimes } from './file-reads.js';
import type { MessageRecords } from './messages.js';
import type { PartRecords } from './parts.js';
import type { PermissionRecords } from './permissions.js';
import type { PromptRecords } from './prompts.js';
import type { RateLimits } from './rate-limits.js';
import type { SessionRecords } from './sessions.js';
import type { TodoRecords } from './todos.js';
import type { WorkspaceConfigRecords } from './workspace-configs.js';
import type { ConfigTrustRecords } from './config-trust.js';

/**
 * The source of truth for sessions, messages and parts, and all else a run keeps: every concern's
 * records in one object. Writes are upserts keyed by id, so an activity that is retried rewrites
 * the same rows. Code that needs one concern can take its narrow interface instead.
 */
export interface SessionStore
  extends
    SessionRecords,
    MessageRecords,
    PartRecords,
    ChangeFeed,
    FileReadTimes,
    BatchRecords,
    PromptRecords,
    TodoRecords,
    PermissionRecords,
    WorkspaceConfigRecords,
    ConfigTrustRecords,
    BudgetRecords,
    RateLimits {
  close(): Promise<void>;
}
