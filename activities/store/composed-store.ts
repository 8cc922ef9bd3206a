import type { BatchRecord, BatchTaskInput, BatchTaskOutcome } from '../../core/batch.js';
import type { Message } from '../../core/message.js';
import type { Part } from '../../core/part.js';
import type { PermissionRule } from '../../core/permission.js';
import type { PermissionRequestRecord } from '../../core/permission-request.js';
import type { StoredPrompt } from '../../core/prompt.js';
import type { Session, SessionStatus } from '../../core/session.js';
import type { Todo } from '../../core/todo.js';
import type { WorkspaceSnapshot } from '../config/files.js';
import { batchRecords, type BatchRows } from './batches.js';
import { budgetRecords, type BudgetRows } from './budgets.js';
import type { Budget } from '../../core/budget.js';
import { changeFeed, type ChangeFeedRows, type WaitOptions } from './change-feed.js';
import type { FileReadTimes } from './file-reads.js';
import { messageRecords, type MessageRows } from './messages.js';
import { partRecords, type PartRows } from './parts.js';
import { permissionRecords, type PermissionRows } from './permissions.js';
import { promptRecords, type PromptRows } from './prompts.js';
import { rateLimits, type RateLimitRows } from './rate-limits.js';
import { sessionRecords, type ListSessionsOptions, type SessionRows } from './sessions.js';
import type { SessionStore } from './store.js';
import { todoRecords, type TodoRows } from './todos.js';
import { workspaceSnapshots, type WorkspaceSnapshotRows } from './workspace-snapshots.js';
import { configTrustRecords, type ConfigChange, type ConfigTrustRows, type TrustWhen } from './config-trust.js';
import type { ConfigFilesSnapshot } from '../config/files.js';

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
  workspaceSnapshots: WorkspaceSnapshotRows;
  configTrust: ConfigTrustRows;
  budgets: BudgetRows;
  rateLimits: RateLimitRows;
}

/**
 * A `SessionStore` made of each concern's records over one dialect's rows; the dialect adds how it opens and closes.
 */
export abstract class ComposedStore implements SessionStore {
  private readonly sessions;
  private readonly messageRecords;
  private readonly partRecords;
  private readonly changeFeed;
  private readonly fileReads;
  private readonly batches;
  private readonly prompts;
  private readonly todoRecords;
  private readonly permissions;
  private readonly snapshots;
  private readonly trust;
  private readonly budgets;
  private readonly rateLimits;

  protected constructor(rows: StoreRows) {
    this.sessions = sessionRecords(rows.sessions);
    this.messageRecords = messageRecords(rows.messages);
    this.partRecords = partRecords(rows.parts);
    this.changeFeed = changeFeed(rows.changeFeed);
    this.fileReads = rows.fileReads;
    this.batches = batchRecords(rows.batches);
    this.prompts = promptRecords(rows.prompts);
    this.todoRecords = todoRecords(rows.todos);
    this.permissions = permissionRecords(rows.permissions);
    this.snapshots = workspaceSnapshots(rows.workspaceSnapshots);
    this.trust = configTrustRecords(rows.configTrust);
    this.budgets = budgetRecords(rows.budgets);
    this.rateLimits = rateLimits(rows.rateLimits);
  }

  abstract close(): Promise<void>;

  saveSession = (session: Session) => this.sessions.saveSession(session);
  getSession = (id: string) => this.sessions.getSession(id);
  listSessions = (options?: ListSessionsOptions) => this.sessions.listSessions(options);
  children = (parentID: string) => this.sessions.children(parentID);
  setSessionStatus = (id: string, status: SessionStatus, now: number) =>
    this.sessions.setSessionStatus(id, status, now);
  removeSession = (id: string) => this.sessions.removeSession(id);

  saveMessage = (message: Message) => this.messageRecords.saveMessage(message);
  getMessage = (id: string) => this.messageRecords.getMessage(id);
  messages = (sessionID: string, since?: string) => this.messageRecords.messages(sessionID, since);
  compactionStart = (sessionID: string) => this.messageRecords.compactionStart(sessionID);
  lastFinishedStep = (sessionID: string) => this.messageRecords.lastFinishedStep(sessionID);
  usage = (sessionID: string) => this.messageRecords.usage(sessionID);
  removeMessages = (sessionID: string, messageIDs: string[]) =>
    this.messageRecords.removeMessages(sessionID, messageIDs);

  parts = (messageID: string) => this.partRecords.parts(messageID);
  savePart = (part: Part) => this.partRecords.savePart(part);
  getPart = (id: string) => this.partRecords.getPart(id);
  updatePart = (id: string, update: (part: Part) => Part) => this.partRecords.updatePart(id, update);
  deleteParts = (messageID: string) => this.partRecords.deleteParts(messageID);

  changes = (sessionID: string, since: number) => this.changeFeed.changes(sessionID, since);
  waitForChange = (sessionID: string, since: number, options: WaitOptions) =>
    this.changeFeed.waitForChange(sessionID, since, options);
  feed = (since: number, limit?: number) => this.changeFeed.feed(since, limit);
  waitForFeed = (since: number, options: WaitOptions) => this.changeFeed.waitForFeed(since, options);

  recordFileRead = (sessionID: string, path: string, mtimeMs: number) =>
    this.fileReads.recordFileRead(sessionID, path, mtimeMs);
  fileReadMtime = (sessionID: string, path: string) => this.fileReads.fileReadMtime(sessionID, path);

  createBatch = (batch: BatchRecord, tasks: BatchTaskInput[]) => this.batches.createBatch(batch, tasks);
  saveBatch = (batch: BatchRecord) => this.batches.saveBatch(batch);
  getBatch = (id: string) => this.batches.getBatch(id);
  listBatches = (limit?: number) => this.batches.listBatches(limit);
  batchTask = (batchId: string, index: number) => this.batches.batchTask(batchId, index);
  saveBatchOutcomes = (batchId: string, outcomes: BatchTaskOutcome[]) =>
    this.batches.saveBatchOutcomes(batchId, outcomes);
  batchCounts = (batchId: string) => this.batches.batchCounts(batchId);
  liveCounts = () => this.batches.liveCounts();
  batchTasks = (batchId: string, page?: { from?: number; limit?: number }) => this.batches.batchTasks(batchId, page);

  savePrompt = (prompt: StoredPrompt) => this.prompts.savePrompt(prompt);
  getPrompt = (id: string) => this.prompts.getPrompt(id);

  saveTodos = (sessionID: string, todos: Todo[]) => this.todoRecords.saveTodos(sessionID, todos);
  todos = (sessionID: string) => this.todoRecords.todos(sessionID);

  savePermissionRequest = (request: PermissionRequestRecord) => this.permissions.savePermissionRequest(request);
  getPermissionRequest = (id: string) => this.permissions.getPermissionRequest(id);
  permissionRequests = (filter?: { status?: PermissionRequestRecord['status']; rootID?: string }) =>
    this.permissions.permissionRequests(filter);
  approvedRules = (rootID: string) => this.permissions.approvedRules(rootID);
  addApprovedRules = (rootID: string, rules: PermissionRule[]) => this.permissions.addApprovedRules(rootID, rules);

  saveWorkspaceSnapshot = (id: string, snapshot: WorkspaceSnapshot) =>
    this.snapshots.saveWorkspaceSnapshot(id, snapshot);
  workspaceSnapshot = (id: string) => this.snapshots.workspaceSnapshot(id);
  configTrust = (directory: string) => this.trust.configTrust(directory);
  trustConfig = (
    directory: string,
    trusted: { id: string; snapshot: ConfigFilesSnapshot; time: number },
    when: TrustWhen,
  ) => this.trust.trustConfig(directory, trusted, when);
  markConfigChanged = (directory: string, trustedId: string, change: ConfigChange) =>
    this.trust.markConfigChanged(directory, trustedId, change);

  budgetOf = (ownerID: string) => this.budgets.budgetOf(ownerID);
  setBudget = (ownerID: string, budget: Budget) => this.budgets.setBudget(ownerID, budget);
  subtreeUsage = (sessionID: string) => this.budgets.subtreeUsage(sessionID);
  batchUsage = (batchID: string) => this.budgets.batchUsage(batchID);
  batchBudgetsOf = (sessionID: string) => this.budgets.batchBudgetsOf(sessionID);
  reserveRateSlot = (key: string, now: number, intervalMs: number, horizonMs: number) =>
    this.rateLimits.reserveRateSlot(key, now, intervalMs, horizonMs);
  rateGate = (key: string) => this.rateLimits.rateGate(key);
  blockRateGate = (key: string, now: number, until?: number) => this.rateLimits.blockRateGate(key, now, until);
  clearRateStrikes = (key: string) => this.rateLimits.clearRateStrikes(key);
  spendRateTokens = (key: string, now: number, ms: number) => this.rateLimits.spendRateTokens(key, now, ms);
}
