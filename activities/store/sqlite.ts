import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { BatchRecord, BatchTaskInput, BatchTaskOutcome } from '../../core/batch.js';
import { Message, type AssistantMessage, type MessageWithParts, type Tokens } from '../../core/message.js';
import { Part } from '../../core/part.js';
import { Session, type SessionStatus } from '../../core/session.js';
import type { PermissionRule } from '../../core/permission.js';
import { PermissionRequestRecord } from '../../core/permission-request.js';
import type { StoredPrompt } from '../../core/prompt.js';
import { Todo } from '../../core/todo.js';
import { WorkspaceSnapshot } from '../config/files.js';
import { migrations } from './migrations.js';
import { DEFAULT_FEED_LIMIT } from './feed-page.js';
import { SqliteChangeFeed } from './sqlite-change-feed.js';
import { SqliteFeedReader } from './sqlite-feed.js';
import { NotFoundError, type ListSessionsOptions, type LiveCounts, type SessionChanges, type SessionStore, type StoreFeed, type WaitOptions } from './store.js';

/** The embedded session store: one SQLite file in WAL mode, shared by the worker and the CLI. */
export class SqliteSessionStore implements SessionStore {
  private readonly db: Database.Database;
  private readonly statements;
  private readonly changeFeed: SqliteChangeFeed;
  private readonly feedReader: SqliteFeedReader;

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 10000');
    this.migrate();
    this.statements = this.prepare();
    this.changeFeed = new SqliteChangeFeed(this.db);
    this.feedReader = new SqliteFeedReader(this.db);
  }

  private migrate(): void {
    // The version is read under the write lock: a worker and the CLI may open a new file at once.
    this.db.transaction(() => {
      const applied = this.db.pragma('user_version', { simple: true }) as number;
      if (applied > migrations.length) {
        throw new Error(
          `Session store ${this.file} has schema version ${applied}, newer than this Loom (${migrations.length}). Upgrade Loom.`,
        );
      }
      for (let version = applied; version < migrations.length; version++) {
        this.db.exec(migrations[version]);
        this.db.pragma(`user_version = ${version + 1}`);
      }
    }).immediate();
  }

  private prepare() {
    const db = this.db;
    return {
      nextRev: db.prepare('UPDATE revision SET value = value + 1 WHERE id = 1 RETURNING value'),
      upsertSession: db.prepare(
        `INSERT INTO session (id, parent_id, time_updated, rev, data) VALUES (@id, @parent, @updated, @rev, @data)
         ON CONFLICT(id) DO UPDATE SET parent_id = excluded.parent_id, time_updated = excluded.time_updated, rev = excluded.rev, data = excluded.data`,
      ),
      getSession: db.prepare('SELECT data FROM session WHERE id = ?'),
      listSessions: db.prepare(
        `SELECT data FROM session
         WHERE (@roots = 0 OR parent_id IS NULL) AND (@directory IS NULL OR json_extract(data, '$.directory') = @directory)
         ORDER BY time_updated DESC, id DESC LIMIT @limit`,
      ),
      children: db.prepare('SELECT data FROM session WHERE parent_id = ? ORDER BY id'),
      upsertMessage: db.prepare(
        `INSERT INTO message (id, session_id, rev, data) VALUES (@id, @session, @rev, @data)
         ON CONFLICT(id) DO UPDATE SET rev = excluded.rev, data = excluded.data`,
      ),
      getMessage: db.prepare('SELECT data FROM message WHERE id = ?'),
      messages: db.prepare('SELECT data FROM message WHERE session_id = ? AND id >= ? ORDER BY id'),
      compactionRequests: db.prepare(
        `SELECT message_id FROM part WHERE session_id = ? AND json_extract(data, '$.type') = 'compaction' ORDER BY id DESC LIMIT 20`,
      ),
      summaryAfter: db.prepare(
        `SELECT data FROM message WHERE session_id = ? AND id > ? AND json_extract(data, '$.summary') = 1 ORDER BY id LIMIT 1`,
      ),
      partsOfMessage: db.prepare('SELECT data FROM part WHERE message_id = ? ORDER BY id'),
      partsOfSession: db.prepare('SELECT data FROM part WHERE session_id = ? AND message_id >= ? ORDER BY id'),
      upsertPart: db.prepare(
        `INSERT INTO part (id, message_id, session_id, rev, data) VALUES (@id, @message, @session, @rev, @data)
         ON CONFLICT(id) DO UPDATE SET rev = excluded.rev, data = excluded.data`,
      ),
      getPart: db.prepare('SELECT data FROM part WHERE id = ?'),
      partIdsOfMessage: db.prepare('SELECT id FROM part WHERE message_id = ? ORDER BY id').pluck(),
      deleteParts: db.prepare('DELETE FROM part WHERE message_id = ?'),
      partRemoved: db.prepare(
        `INSERT INTO part_removed (id, message_id, session_id, rev) VALUES (@id, @message, @session, @rev)
         ON CONFLICT(id) DO UPDATE SET rev = excluded.rev`,
      ),
      messagesSince: db.prepare('SELECT data FROM message WHERE session_id = ? AND rev > ? ORDER BY id'),
      partsSince: db.prepare('SELECT data FROM part WHERE session_id = ? AND rev > ? ORDER BY id'),
      removedSince: db.prepare('SELECT id FROM part_removed WHERE session_id = ? AND rev > ? ORDER BY rev').pluck(),
      currentRev: db.prepare('SELECT value FROM revision WHERE id = 1'),
      recordFileRead: db.prepare(
        `INSERT INTO file_read (session_id, path, mtime) VALUES (?, ?, ?)
         ON CONFLICT(session_id, path) DO UPDATE SET mtime = excluded.mtime`,
      ),
      fileReadMtime: db.prepare('SELECT mtime FROM file_read WHERE session_id = ? AND path = ?'),
      upsertPrompt: db.prepare(
        `INSERT INTO prompt (id, session_id, time_created, text) VALUES (@id, @session, @created, @text)
         ON CONFLICT(id) DO UPDATE SET session_id = excluded.session_id, text = excluded.text`,
      ),
      getPrompt: db.prepare('SELECT id, session_id, time_created, text FROM prompt WHERE id = ?'),
      saveTodos: db.prepare(
        'INSERT INTO todo (session_id, data) VALUES (?, ?) ON CONFLICT(session_id) DO UPDATE SET data = excluded.data',
      ),
      todos: db.prepare('SELECT data FROM todo WHERE session_id = ?'),
      upsertBatch: db.prepare(
        `INSERT INTO batch (id, time_created, rev, data) VALUES (@id, @created, @rev, @data)
         ON CONFLICT(id) DO UPDATE SET rev = excluded.rev, data = excluded.data`,
      ),
      getBatch: db.prepare('SELECT data FROM batch WHERE id = ?'),
      listBatches: db.prepare('SELECT data FROM batch ORDER BY time_created DESC, id DESC LIMIT ?'),
      insertBatchTask: db.prepare('INSERT INTO batch_task (batch_id, idx, task, session_id, outcome) VALUES (?, ?, ?, ?, ?)'),
      batchTask: db.prepare('SELECT task, outcome FROM batch_task WHERE batch_id = ? AND idx = ?'),
      batchTasks: db.prepare('SELECT task, outcome FROM batch_task WHERE batch_id = ? AND idx >= ? ORDER BY idx LIMIT ?'),
      batchCounts: db.prepare(
        `SELECT json_extract(outcome, '$.status') AS status, COUNT(*) AS count FROM batch_task WHERE batch_id = ? GROUP BY status`,
      ),
      liveBatchTasks: db.prepare(
        `SELECT json_extract(t.outcome, '$.status') AS status, COUNT(*) AS count FROM batch_task t JOIN batch b ON b.id = t.batch_id
         WHERE json_extract(b.data, '$.status') = 'running' GROUP BY status`,
      ),
      permissionsWaiting: db.prepare(`SELECT COUNT(*) AS count FROM permission_request WHERE status = 'pending'`),
      subagentsRunning: db.prepare(`SELECT COUNT(*) AS count FROM session WHERE parent_id IS NOT NULL AND json_extract(data, '$.status') = 'busy'`),
      saveBatchOutcome: db.prepare('UPDATE batch_task SET outcome = ?, session_id = ? WHERE batch_id = ? AND idx = ?'),
      touchBatch: db.prepare('UPDATE batch SET rev = ? WHERE id = ?'),
      recentAssistant: db.prepare(
        `SELECT data FROM message WHERE session_id = ? AND json_extract(data, '$.role') = 'assistant' ORDER BY id DESC LIMIT 20`,
      ),
      usage: db.prepare(
        `SELECT IFNULL(SUM(json_extract(data, '$.tokens.input')), 0) AS input,
                IFNULL(SUM(json_extract(data, '$.tokens.output')), 0) AS output,
                IFNULL(SUM(json_extract(data, '$.tokens.reasoning')), 0) AS reasoning,
                IFNULL(SUM(json_extract(data, '$.tokens.cache.read')), 0) AS cacheRead,
                IFNULL(SUM(json_extract(data, '$.tokens.cache.write')), 0) AS cacheWrite,
                IFNULL(SUM(json_extract(data, '$.cost')), 0) AS cost
         FROM message WHERE session_id = ? AND json_extract(data, '$.role') = 'assistant'`,
      ),
      upsertPermissionRequest: db.prepare(
        `INSERT INTO permission_request (id, session_id, root_id, status, rev, data) VALUES (@id, @session, @root, @status, @rev, @data)
         ON CONFLICT(id) DO UPDATE SET status = excluded.status, rev = excluded.rev, data = excluded.data`,
      ),
      getPermissionRequest: db.prepare('SELECT data FROM permission_request WHERE id = ?'),
      permissionRequests: db.prepare(
        `SELECT data FROM permission_request
         WHERE (@status IS NULL OR status = @status) AND (@root IS NULL OR root_id = @root) ORDER BY id`,
      ),
      approvedRules: db.prepare('SELECT permission, pattern FROM approved_rule WHERE root_id = ? ORDER BY seq'),
      addApprovedRule: db.prepare(
        `INSERT INTO approved_rule (root_id, seq, permission, pattern)
         VALUES (@root, (SELECT IFNULL(MAX(seq), 0) + 1 FROM approved_rule WHERE root_id = @root), @permission, @pattern)
         ON CONFLICT DO NOTHING`,
      ),
      saveWorkspaceSnapshot: db.prepare('INSERT INTO workspace_snapshot (id, data) VALUES (?, ?) ON CONFLICT(id) DO NOTHING'),
      workspaceSnapshot: db.prepare('SELECT data FROM workspace_snapshot WHERE id = ?'),
    };
  }

  private rev(): number {
    return (this.statements.nextRev.get() as { value: number }).value;
  }

  async saveSession(session: Session): Promise<void> {
    this.db.transaction(() => this.writeSession(session)).immediate();
    this.changeFeed.written(session.id);
  }

  private writeSession(session: Session): void {
    const valid = Session.parse(session);
    this.statements.upsertSession.run({
      id: valid.id,
      parent: valid.parentID ?? null,
      updated: valid.time.updated,
      rev: this.rev(),
      data: JSON.stringify(valid),
    });
  }

  async getSession(id: string): Promise<Session | undefined> {
    return this.readOne(this.statements.getSession, id, Session);
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<Session[]> {
    const filter = { roots: options.roots ? 1 : 0, directory: options.directory ?? null, limit: options.limit ?? -1 };
    return this.readAll(this.statements.listSessions, [filter], Session);
  }

  async children(parentID: string): Promise<Session[]> {
    return this.readAll(this.statements.children, [parentID], Session);
  }

  async setSessionStatus(id: string, status: SessionStatus, now: number): Promise<void> {
    this.db.transaction(() => {
      const session = this.readOne(this.statements.getSession, id, Session);
      if (!session) throw new NotFoundError(`Unknown session "${id}"`);
      this.writeSession({ ...session, status, time: { ...session.time, updated: now } });
    }).immediate();
    this.changeFeed.written(id);
  }

  async saveMessage(message: Message): Promise<void> {
    const valid = Message.parse(message);
    this.db.transaction(() => {
      this.statements.upsertMessage.run({
        id: valid.id,
        session: valid.sessionID,
        rev: this.rev(),
        data: JSON.stringify(valid),
      });
    }).immediate();
    this.changeFeed.written(valid.sessionID);
  }

  async getMessage(id: string): Promise<Message | undefined> {
    return this.readOne(this.statements.getMessage, id, Message);
  }

  async messages(sessionID: string, since = ''): Promise<MessageWithParts[]> {
    return this.db.transaction(() => {
      const messages = this.readAll(this.statements.messages, [sessionID, since], Message);
      const parts = this.readAll(this.statements.partsOfSession, [sessionID, since], Part);
      const byMessage = new Map<string, Part[]>(messages.map((m) => [m.id, []]));
      for (const part of parts) byMessage.get(part.messageID)?.push(part);
      return messages.map((info) => ({ info, parts: byMessage.get(info.id) ?? [] }));
    })();
  }

  async compactionStart(sessionID: string): Promise<string | undefined> {
    for (const { message_id: request } of this.statements.compactionRequests.all(sessionID) as { message_id: string }[]) {
      const row = this.statements.summaryAfter.get(sessionID, request) as { data: string } | undefined;
      const summary = row ? Message.parse(JSON.parse(row.data)) : undefined;
      if (summary?.role === 'assistant' && summary.finish && !summary.error) return request;
    }
    return undefined;
  }

  async parts(messageID: string): Promise<Part[]> {
    return this.readAll(this.statements.partsOfMessage, [messageID], Part);
  }

  async savePart(part: Part): Promise<void> {
    this.db.transaction(() => this.writePart(part)).immediate();
    this.changeFeed.written(part.sessionID);
  }

  private writePart(part: Part): void {
    const valid = Part.parse(part);
    this.statements.upsertPart.run({
      id: valid.id,
      message: valid.messageID,
      session: valid.sessionID,
      rev: this.rev(),
      data: JSON.stringify(valid),
    });
  }

  async getPart(id: string): Promise<Part | undefined> {
    return this.readOne(this.statements.getPart, id, Part);
  }

  async updatePart(id: string, update: (part: Part) => Part): Promise<Part> {
    const next = this.db.transaction(() => {
      const current = this.readOne(this.statements.getPart, id, Part);
      if (!current) throw new NotFoundError(`Unknown part "${id}"`);
      const next = update(current);
      this.writePart(next);
      return next;
    }).immediate();
    this.changeFeed.written(next.sessionID);
    return next;
  }

  async deleteParts(messageID: string): Promise<void> {
    const sessionID = this.db.transaction(() => {
      const parts = this.readAll(this.statements.partsOfMessage, [messageID], Part);
      // Followers of the event stream learn of each removal, each at its own revision.
      for (const part of parts) this.statements.partRemoved.run({ id: part.id, message: messageID, session: part.sessionID, rev: this.rev() });
      this.statements.deleteParts.run(messageID);
      return parts[0]?.sessionID;
    }).immediate();
    if (sessionID) this.changeFeed.written(sessionID);
  }

  async changes(sessionID: string, since: number): Promise<SessionChanges> {
    return this.db.transaction(() => {
      const cursor = (this.statements.currentRev.get() as { value: number }).value;
      return {
        cursor,
        messages: this.readAll(this.statements.messagesSince, [sessionID, since], Message),
        parts: this.readAll(this.statements.partsSince, [sessionID, since], Part),
        removedParts: this.statements.removedSince.all(sessionID, since) as string[],
      };
    })();
  }

  async waitForChange(sessionID: string, since: number, options: WaitOptions): Promise<void> {
    return this.changeFeed.wait(sessionID, since, options);
  }

  async feed(since: number, limit = DEFAULT_FEED_LIMIT): Promise<StoreFeed> {
    return this.feedReader.read(since, limit);
  }

  async waitForFeed(since: number, options: WaitOptions): Promise<void> {
    return this.changeFeed.wait(undefined, since, options);
  }

  async recordFileRead(sessionID: string, path: string, mtimeMs: number): Promise<void> {
    this.statements.recordFileRead.run(sessionID, path, mtimeMs);
  }

  async fileReadMtime(sessionID: string, path: string): Promise<number | undefined> {
    return (this.statements.fileReadMtime.get(sessionID, path) as { mtime: number } | undefined)?.mtime;
  }

  async lastFinishedStep(sessionID: string): Promise<AssistantMessage | undefined> {
    for (const message of this.readAll(this.statements.recentAssistant, [sessionID], Message)) {
      if (message.role === 'assistant' && message.finish && !message.summary && !message.error) return message;
    }
    return undefined;
  }

  async usage(sessionID: string): Promise<{ tokens: Tokens; cost: number }> {
    const row = this.statements.usage.get(sessionID) as Record<'input' | 'output' | 'reasoning' | 'cacheRead' | 'cacheWrite' | 'cost', number>;
    return {
      tokens: { input: row.input, output: row.output, reasoning: row.reasoning, cache: { read: row.cacheRead, write: row.cacheWrite } },
      cost: row.cost,
    };
  }

  async createBatch(batch: BatchRecord, tasks: BatchTaskInput[]): Promise<void> {
    this.db.transaction(() => {
      this.writeBatch(batch);
      tasks.forEach((task, index) => {
        const outcome: BatchTaskOutcome = { index, status: 'pending', attempts: 0, sessionId: task.session_id };
        this.statements.insertBatchTask.run(batch.id, index, JSON.stringify(BatchTaskInput.parse(task)), task.session_id ?? null, JSON.stringify(outcome));
      });
    }).immediate();
    this.changeFeed.written(undefined);
  }

  async saveBatch(batch: BatchRecord): Promise<void> {
    this.db.transaction(() => this.writeBatch(batch)).immediate();
    this.changeFeed.written(undefined);
  }

  private writeBatch(batch: BatchRecord): void {
    const valid = BatchRecord.parse(batch);
    this.statements.upsertBatch.run({ id: valid.id, created: valid.time.created, rev: this.rev(), data: JSON.stringify(valid) });
  }

  async getBatch(id: string): Promise<BatchRecord | undefined> {
    return this.readOne(this.statements.getBatch, id, BatchRecord);
  }

  async listBatches(limit = 50): Promise<BatchRecord[]> {
    return this.readAll(this.statements.listBatches, [limit], BatchRecord);
  }

  async batchTask(batchId: string, index: number): Promise<{ task: BatchTaskInput; outcome: BatchTaskOutcome } | undefined> {
    const row = this.statements.batchTask.get(batchId, index) as { task: string; outcome: string } | undefined;
    return row ? { task: BatchTaskInput.parse(JSON.parse(row.task)), outcome: BatchTaskOutcome.parse(JSON.parse(row.outcome)) } : undefined;
  }

  async saveBatchOutcomes(batchId: string, outcomes: BatchTaskOutcome[]): Promise<void> {
    this.db.transaction(() => {
      for (const outcome of outcomes) {
        const valid = BatchTaskOutcome.parse(outcome);
        this.statements.saveBatchOutcome.run(JSON.stringify(valid), valid.sessionId ?? null, batchId, valid.index);
      }
      // The batch's progress changed: its row takes a new revision, so the event stream says so.
      this.statements.touchBatch.run(this.rev(), batchId);
    }).immediate();
    this.changeFeed.written(undefined);
  }

  async liveCounts(): Promise<LiveCounts> {
    const batchTasks = { pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
    for (const row of this.statements.liveBatchTasks.all() as { status: keyof typeof batchTasks; count: number }[]) batchTasks[row.status] = row.count;
    const count = (statement: 'permissionsWaiting' | 'subagentsRunning') => (this.statements[statement].get() as { count: number }).count;
    return { permissionsWaiting: count('permissionsWaiting'), subagentsRunning: count('subagentsRunning'), batchTasks };
  }

  async batchCounts(batchId: string): Promise<Record<BatchTaskOutcome['status'], number>> {
    const counts = { pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
    for (const row of this.statements.batchCounts.all(batchId) as { status: keyof typeof counts; count: number }[]) counts[row.status] = row.count;
    return counts;
  }

  async batchTasks(batchId: string, page: { from?: number; limit?: number } = {}): Promise<{ task: BatchTaskInput; outcome: BatchTaskOutcome }[]> {
    const rows = this.statements.batchTasks.all(batchId, page.from ?? 0, page.limit ?? -1) as { task: string; outcome: string }[];
    return rows.map((row) => ({ task: BatchTaskInput.parse(JSON.parse(row.task)), outcome: BatchTaskOutcome.parse(JSON.parse(row.outcome)) }));
  }

  async savePrompt(prompt: StoredPrompt): Promise<void> {
    this.statements.upsertPrompt.run({ id: prompt.id, session: prompt.sessionID ?? null, created: prompt.time.created, text: prompt.text });
  }

  async getPrompt(id: string): Promise<StoredPrompt | undefined> {
    const row = this.statements.getPrompt.get(id) as { id: string; session_id: string | null; time_created: number; text: string } | undefined;
    return row && { id: row.id, ...(row.session_id ? { sessionID: row.session_id } : {}), text: row.text, time: { created: row.time_created } };
  }

  async saveTodos(sessionID: string, todos: Todo[]): Promise<void> {
    this.statements.saveTodos.run(sessionID, JSON.stringify(z.array(Todo).parse(todos)));
  }

  async todos(sessionID: string): Promise<Todo[]> {
    const row = this.statements.todos.get(sessionID) as { data: string } | undefined;
    return row ? z.array(Todo).parse(JSON.parse(row.data)) : [];
  }

  async savePermissionRequest(request: PermissionRequestRecord): Promise<void> {
    const valid = PermissionRequestRecord.parse(request);
    this.db.transaction(() =>
      this.statements.upsertPermissionRequest.run({
        id: valid.id,
        session: valid.sessionID,
        root: valid.rootID,
        status: valid.status,
        rev: this.rev(),
        data: JSON.stringify(valid),
      }),
    ).immediate();
    this.changeFeed.written(valid.sessionID);
  }

  async getPermissionRequest(id: string): Promise<PermissionRequestRecord | undefined> {
    return this.readOne(this.statements.getPermissionRequest, id, PermissionRequestRecord);
  }

  async permissionRequests(
    filter: { status?: PermissionRequestRecord['status']; rootID?: string } = {},
  ): Promise<PermissionRequestRecord[]> {
    return (this.statements.permissionRequests.all({ status: filter.status ?? null, root: filter.rootID ?? null }) as { data: string }[]).map(
      (row) => PermissionRequestRecord.parse(JSON.parse(row.data)),
    );
  }

  async approvedRules(rootID: string): Promise<PermissionRule[]> {
    const rows = this.statements.approvedRules.all(rootID) as { permission: string; pattern: string }[];
    return rows.map((row) => ({ ...row, action: 'allow' as const }));
  }

  async addApprovedRules(rootID: string, rules: PermissionRule[]): Promise<void> {
    this.db.transaction(() => {
      for (const rule of rules) this.statements.addApprovedRule.run({ root: rootID, permission: rule.permission, pattern: rule.pattern });
    }).immediate();
  }

  async saveWorkspaceSnapshot(id: string, snapshot: WorkspaceSnapshot): Promise<void> {
    this.statements.saveWorkspaceSnapshot.run(id, JSON.stringify(WorkspaceSnapshot.parse(snapshot)));
  }

  async workspaceSnapshot(id: string): Promise<WorkspaceSnapshot | undefined> {
    return this.readOne(this.statements.workspaceSnapshot, id, WorkspaceSnapshot);
  }

  async close(): Promise<void> {
    this.changeFeed.close();
    if (this.db.open) this.db.close();
  }

  private readOne<T>(statement: Database.Statement, id: string, schema: { parse(v: unknown): T }): T | undefined {
    const row = statement.get(id) as { data: string } | undefined;
    return row ? schema.parse(JSON.parse(row.data)) : undefined;
  }

  private readAll<T>(statement: Database.Statement, args: unknown[], schema: { parse(v: unknown): T }): T[] {
    return (statement.all(...args) as { data: string }[]).map((row) => schema.parse(JSON.parse(row.data)));
  }
}
