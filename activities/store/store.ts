import type { FeedRow } from '../../core/bus-events.js';
import type { BatchRecord, BatchTaskInput, BatchTaskOutcome } from '../../core/batch.js';
import type { AssistantMessage, Message, MessageWithParts, Tokens } from '../../core/message.js';
import type { Part } from '../../core/part.js';
import type { Session, SessionStatus } from '../../core/session.js';
import type { PermissionRule } from '../../core/permission.js';
import type { PermissionRequestRecord } from '../../core/permission-request.js';
import type { StoredPrompt } from '../../core/prompt.js';
import type { Todo } from '../../core/todo.js';
import type { WorkspaceSnapshot } from '../config/files.js';

/** What changed in a session since a cursor: for following a run live, and keeping a transcript current. */
export interface SessionChanges {
  cursor: number;
  messages: Message[];
  parts: Part[];
  /** Ids of parts deleted since the cursor (a retried model call starts its answer again); a part written again after is in `parts`. */
  removedParts: string[];
}

/** One row written after a cursor, as the store's feed of every session returns it. */
export type FeedEntry = { rev: number } & FeedRow;

/** What was written after a cursor, oldest first; `more` when `cursor` stopped at the page's end. */
export interface StoreFeed {
  cursor: number;
  entries: FeedEntry[];
  more: boolean;
}

/** How long `waitForChange` may wait, and what ends the wait early. */
export interface WaitOptions {
  /** Resolve after this long even when nothing was seen to change. */
  timeoutMs: number;
  /** Resolve at once when this aborts (the follower is done). */
  signal?: AbortSignal;
}

/** What is under way across the whole deployment, for the workers' metrics. */
export interface LiveCounts {
  /** Permission requests waiting for a person. */
  permissionsWaiting: number;
  /** Subagent sessions whose run is busy. */
  subagentsRunning: number;
  /** The tasks of running batches, by status. */
  batchTasks: Record<BatchTaskOutcome['status'], number>;
}

/** Which sessions `listSessions` returns; `limit` counts what is left after the other filters. */
export interface ListSessionsOptions {
  roots?: boolean;
  directory?: string;
  limit?: number;
}

/**
 * The source of truth for sessions, messages and parts. Writes are upserts keyed by id, so an
 * activity that is retried rewrites the same rows.
 */
export interface SessionStore {
  saveSession(session: Session): Promise<void>;
  getSession(id: string): Promise<Session | undefined>;
  /** Newest first. `roots` leaves out child sessions; `directory` keeps only the sessions of that project folder. */
  listSessions(options?: ListSessionsOptions): Promise<Session[]>;
  children(parentID: string): Promise<Session[]>;
  setSessionStatus(id: string, status: SessionStatus, now: number): Promise<void>;

  saveMessage(message: Message): Promise<void>;
  getMessage(id: string): Promise<Message | undefined>;
  /** The session's messages with their parts, in creation order; `since` starts at that message. */
  messages(sessionID: string, since?: string): Promise<MessageWithParts[]>;
  /**
   * Where the model's view of a session starts: the last compaction request whose summary
   * finished without error, or undefined when there is none.
   */
  compactionStart(sessionID: string): Promise<string | undefined>;

  /** A message's parts, in order. */
  parts(messageID: string): Promise<Part[]>;
  savePart(part: Part): Promise<void>;
  getPart(id: string): Promise<Part | undefined>;
  /** Reads, changes and writes a part in one transaction. Returns the new part. */
  updatePart(id: string, update: (part: Part) => Part): Promise<Part>;
  /** Removes a message's parts (a retried model call starts its answer again). */
  deleteParts(messageID: string): Promise<void>;

  changes(sessionID: string, since: number): Promise<SessionChanges>;
  /**
   * Waits, without polling `changes`, until the session may hold messages or parts newer than
   * `since` (a cursor from `changes`), or its own row or a permission request of it changed, or until `timeoutMs` passes or `signal` aborts; it never
   * rejects. A wake-up is a hint, not a promise: the caller then calls `changes`, which says what
   * (if anything) is new. A follower loops `changes` → `waitForChange` with the cursor it got.
   * PostgreSQL learns of commits from any machine by LISTEN/NOTIFY; SQLite wakes at once on writes
   * through the same store object and looks every ~150 ms for writes by other processes.
   */
  waitForChange(sessionID: string, since: number, options: WaitOptions): Promise<void>;
  /**
   * Every session's changes after `since`, with sessions, permission requests, batches and removed
   * parts, each at its latest state, in revision order, at most `limit` (default 500) at a time.
   * Every revision up to the returned cursor is committed, so a reader that resumes from it misses
   * nothing. What `loom serve`'s event stream is made of.
   */
  feed(since: number, limit?: number): Promise<StoreFeed>;
  /** `waitForChange` for the whole store: resolves when anything may be newer than `since`. */
  waitForFeed(since: number, options: WaitOptions): Promise<void>;

  /** Remembers the modification time of a file the session has read (or written). */
  recordFileRead(sessionID: string, path: string, mtimeMs: number): Promise<void>;
  /** The modification time the file had when the session last read it. */
  fileReadMtime(sessionID: string, path: string): Promise<number | undefined>;

  /** The last assistant message that finished a step (not a summary, no error). */
  lastFinishedStep(sessionID: string): Promise<AssistantMessage | undefined>;
  /** Tokens and cost of a session's own assistant messages (not its subagents'). */
  usage(sessionID: string): Promise<{ tokens: Tokens; cost: number }>;

  /** Stores a batch and its tasks (each pending, attempt 0). */
  createBatch(batch: BatchRecord, tasks: BatchTaskInput[]): Promise<void>;
  saveBatch(batch: BatchRecord): Promise<void>;
  getBatch(id: string): Promise<BatchRecord | undefined>;
  /** Newest first. */
  listBatches(limit?: number): Promise<BatchRecord[]>;
  batchTask(batchId: string, index: number): Promise<{ task: BatchTaskInput; outcome: BatchTaskOutcome } | undefined>;
  saveBatchOutcomes(batchId: string, outcomes: BatchTaskOutcome[]): Promise<void>;
  /** How many of a batch's tasks are in each status. */
  batchCounts(batchId: string): Promise<Record<BatchTaskOutcome['status'], number>>;
  /** What is under way in the whole store: waiting requests, busy subagents, tasks of running batches. */
  liveCounts(): Promise<LiveCounts>;
  /** Every task with its outcome, in order; `from`/`limit` page through them. */
  batchTasks(batchId: string, page?: { from?: number; limit?: number }): Promise<{ task: BatchTaskInput; outcome: BatchTaskOutcome }[]>;

  /** Stores a prompt before any run is told of it (an upsert: sending it again changes nothing). */
  savePrompt(prompt: StoredPrompt): Promise<void>;
  getPrompt(id: string): Promise<StoredPrompt | undefined>;

  saveTodos(sessionID: string, todos: Todo[]): Promise<void>;
  todos(sessionID: string): Promise<Todo[]>;

  savePermissionRequest(request: PermissionRequestRecord): Promise<void>;
  getPermissionRequest(id: string): Promise<PermissionRequestRecord | undefined>;
  /** Requests, oldest first, optionally of one status and one session tree. */
  permissionRequests(filter?: { status?: PermissionRequestRecord['status']; rootID?: string }): Promise<PermissionRequestRecord[]>;
  /** Allow rules a person granted with "always" for a session tree, in the order granted. */
  approvedRules(rootID: string): Promise<PermissionRule[]>;
  addApprovedRules(rootID: string, rules: PermissionRule[]): Promise<void>;

  /**
   * Stores the project part of a workspace's configuration under its content-derived id (an
   * idempotent upsert: the same project stores one row however many runs start in it).
   */
  saveWorkspaceSnapshot(id: string, snapshot: WorkspaceSnapshot): Promise<void>;
  workspaceSnapshot(id: string): Promise<WorkspaceSnapshot | undefined>;
  close(): Promise<void>;
}

export class NotFoundError extends Error {
  override name = 'NotFoundError';
}
