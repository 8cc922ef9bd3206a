import { batchRecords, type BatchRows } from './batches.js';
import { budgetRecords, type BudgetRows } from './budgets.js';
import { changeFeed, type ChangeFeedRows } from './change-feed.js';
import { configTrustRecords, type ConfigTrustRows } from './config-trust.js';
import type { FileReadTimes } from './file-reads.js';
import { messageRecords, type MessageRows } from './messages.js';
import { partRecords, type PartRows } from './parts.js';
import { permissionRecords, type PermissionRows } from './permissions.js';
import { promptRecords, type PromptRows } from './prompts.js';
import { rateLimits, type RateLimitRows } from './rate-limits.js';
import { sessionRecords, type SessionRows } from './sessions.js';
import type { SessionStore } from './store.js';
import { todoRecords, type TodoRows } from './todos.js';
import { workspaceConfigRecords, type WorkspaceConfigRows } from './workspace-configs.js';

/** What a dialect supplies: its SQL for each concern. */
export interface StoreRows {
  sessions: SessionRows;
  messages: MessageRows;
  parts: PartRows;
  changeFeed: ChangeFeedRows;
  fileReads: FileReadTimes;
  batches: BatchRows;
  prompts: PromptRows;
  todos: TodoRows;
  permissions: PermissionRows;
  workspaceConfigs: WorkspaceConfigRows;
  configTrust: ConfigTrustRows;
  budgets: BudgetRows;
  rateLimits: RateLimitRows;
}

/** All of a `SessionStore` but how it closes. */
export type StoreRecords = Omit<SessionStore, 'close'>;

/** Every concern's records over one dialect's rows. */
export function storeRecords(rows: StoreRows): StoreRecords {
  return {
    ...sessionRecords(rows.sessions),
    ...messageRecords(rows.messages),
    ...partRecords(rows.parts),
    ...changeFeed(rows.changeFeed),
    ...rows.fileReads,
    ...batchRecords(rows.batches),
    ...promptRecords(rows.prompts),
    ...todoRecords(rows.todos),
    ...permissionRecords(rows.permissions),
    ...workspaceConfigRecords(rows.workspaceConfigs),
    ...configTrustRecords(rows.configTrust),
    ...budgetRecords(rows.budgets),
    ...rateLimits(rows.rateLimits),
  };
}

/**
 * A base class whose instances hold `storeRecords` of the rows they are made with. TypeScript cannot
 * see what `Object.assign` adds to `this`, so the class is given the type `storeRecords` returns.
 */
const WithStoreRecords = class {
  constructor(rows: StoreRows) {
    Object.assign(this, storeRecords(rows));
  }
} as unknown as abstract new (rows: StoreRows) => StoreRecords;

/**
 * A `SessionStore` made of each concern's records over one dialect's rows; the dialect adds how it opens and closes.
 */
export abstract class ComposedStore extends WithStoreRecords implements SessionStore {
  abstract close(): Promise<void>;
}
