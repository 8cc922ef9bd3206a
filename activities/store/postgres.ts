import type pg from 'pg';
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
import { notifyChange, PostgresChangeFeed } from './postgres-change-feed.js';
import { connectPostgres, type ConnectOptions } from './postgres-connect.js';
import * as batches from './postgres-batches.js';
import * as permissions from './postgres-permissions.js';
import * as queries from './postgres-session-queries.js';
import { all, one, upsertPart, upsertSession, type Queryable } from './postgres-queries.js';
import { LOCK_NAMESPACE, REVISION_LOCK } from './postgres-migrations.js';
import { DEFAULT_FEED_LIMIT } from './feed-page.js';
import { readFeed } from './postgres-feed.js';
import { liveCounts } from './postgres-live-counts.js';
import { NotFoundError, type ListSessionsOptions, type LiveCounts, type SessionChanges, type SessionStore, type StoreFeed, type WaitOptions } from './store.js';

/** The store for several machines: one PostgreSQL database shared by every worker and CLI. */
export class PostgresSessionStore implements SessionStore {
  private closed = false;
  private readonly changeFeed: PostgresChangeFeed;

  private constructor(
    private readonly pool: pg.Pool,
    /** Where the database is (no password), for messages. */
    readonly location: string,
    url: string,
  ) {
    this.changeFeed = new PostgresChangeFeed(url, (sessionID, since) =>
      sessionID === undefined ? queries.anyChangeSince(this.pool, since) : queries.changedSince(this.pool, sessionID, since),
    );
  }

  /** Connects, and creates or upgrades the schema (once, under a lock, whoever else is starting). */
  static async open(url: string, options: ConnectOptions = {}): Promise<PostgresSessionStore> {
    const { pool, display } = await connectPostgres(url, options);
    return new PostgresSessionStore(pool, display, url);
  }

  /** Runs `work` in one transaction on one connection. */
  private async transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T> {
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
  private async revisioned<T>(work: (client: Queryable) => Promise<T>, sessionOf: (result: T) => string | undefined): Promise<T> {
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
  private async committedCursor(): Promise<number> {
    // Waiting for the exclusive lock waits out every open writer.
    return this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_NAMESPACE, REVISION_LOCK]);
      const { rows } = await client.query<{ value: string }>('SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS value FROM revision');
      return Number(rows[0].value);
    });
  }

  async saveSession(session: Session): Promise<void> {
    const valid = Session.parse(session);
    await this.revisioned(
      (client) => upsertSession(client, valid),
      () => valid.id,
    );
  }

  async getSession(id: string): Promise<Session | undefined> {
    return one(this.pool, 'SELECT data FROM session WHERE id = $1', [id], Session);
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<Session[]> {
    return all(
      this.pool,
      `SELECT data FROM session WHERE ($1::boolean IS NOT TRUE OR parent_id IS NULL) AND ($2::text IS NULL OR data->>'directory' = $2)
       ORDER BY time_updated DESC, id DESC LIMIT $3`,
      [options.roots ?? false, options.directory ?? null, options.limit ?? null],
      Session,
    );
  }

  async children(parentID: string): Promise<Session[]> {
    return all(this.pool, 'SELECT data FROM session WHERE parent_id = $1 ORDER BY id', [parentID], Session);
  }

  async setSessionStatus(id: string, status: SessionStatus, now: number): Promise<void> {
    await this.revisioned(
      async (client) => {
        const session = await one(client, 'SELECT data FROM session WHERE id = $1 FOR UPDATE', [id], Session);
        if (!session) throw new NotFoundError(`Unknown session "${id}"`);
        await upsertSession(client, Session.parse({ ...session, status, time: { ...session.time, updated: now } }));
      },
      () => id,
    );
  }

  async saveMessage(message: Message): Promise<void> {
    const valid = Message.parse(message);
    await this.revisioned(
      (client) =>
        client.query(
          `INSERT INTO message (id, session_id, rev, data) VALUES ($1, $2, nextval('revision'), $3::jsonb)
           ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, data = excluded.data`,
          [valid.id, valid.sessionID, JSON.stringify(valid)],
        ),
      () => valid.sessionID,
    );
  }

  async getMessage(id: string): Promise<Message | undefined> {
    return one(this.pool, 'SELECT data FROM message WHERE id = $1', [id], Message);
  }

  async messages(sessionID: string, since = ''): Promise<MessageWithParts[]> {
    // One snapshot for both reads, so no part appears without its message.
    const [messages, parts] = await this.transaction(async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      return [
        await all(client, 'SELECT data FROM message WHERE session_id = $1 AND id >= $2 ORDER BY id', [sessionID, since], Message),
        await all(client, 'SELECT data FROM part WHERE session_id = $1 AND message_id >= $2 ORDER BY id', [sessionID, since], Part),
      ] as const;
    });
    const byMessage = new Map<string, Part[]>(messages.map((m) => [m.id, []]));
    for (const part of parts) byMessage.get(part.messageID)?.push(part);
    return messages.map((info) => ({ info, parts: byMessage.get(info.id) ?? [] }));
  }

  async compactionStart(sessionID: string): Promise<string | undefined> {
    return queries.compactionStart(this.pool, sessionID);
  }

  async parts(messageID: string): Promise<Part[]> {
    return all(this.pool, 'SELECT data FROM part WHERE message_id = $1 ORDER BY id', [messageID], Part);
  }

  async savePart(part: Part): Promise<void> {
    const valid = Part.parse(part);
    await this.revisioned(
      (client) => upsertPart(client, valid),
      () => valid.sessionID,
    );
  }

  async getPart(id: string): Promise<Part | undefined> {
    return one(this.pool, 'SELECT data FROM part WHERE id = $1', [id], Part);
  }

  async updatePart(id: string, update: (part: Part) => Part): Promise<Part> {
    return this.revisioned(async (client) => {
      // The row lock makes a second writer (on any machine) wait and then read this one's result.
      const current = await one(client, 'SELECT data FROM part WHERE id = $1 FOR UPDATE', [id], Part);
      if (!current) throw new NotFoundError(`Unknown part "${id}"`);
      const next = Part.parse(update(current));
      await upsertPart(client, next);
      return next;
    }, (part) => part.sessionID);
  }

  async deleteParts(messageID: string): Promise<void> {
    // Almost always there is nothing to delete (the first attempt of a model call): one read then.
    const { rows } = await this.pool.query('SELECT 1 FROM part WHERE message_id = $1 LIMIT 1', [messageID]);
    if (rows.length === 0) return;
    await this.revisioned(
      async (client) => {
        // Followers of the event stream learn of each removal, each at its own revision.
        const { rows } = await client.query<{ session_id: string }>(
          `WITH gone AS (DELETE FROM part WHERE message_id = $1 RETURNING id, message_id, session_id)
           INSERT INTO part_removed (id, message_id, session_id, rev) SELECT id, message_id, session_id, nextval('revision') FROM gone
           ON CONFLICT (id) DO UPDATE SET rev = excluded.rev
           RETURNING session_id`,
          [messageID],
        );
        return rows[0]?.session_id;
      },
      (sessionID) => sessionID,
    );
  }

  async changes(sessionID: string, since: number): Promise<SessionChanges> {
    // Rows read after the cursor is fixed may be newer than it, which only means a follower sees
    // them twice (parts and messages are applied by id).
    const cursor = await this.committedCursor();
    return {
      cursor,
      messages: await all(this.pool, 'SELECT data FROM message WHERE session_id = $1 AND rev > $2 ORDER BY id', [sessionID, since], Message),
      parts: await all(this.pool, 'SELECT data FROM part WHERE session_id = $1 AND rev > $2 ORDER BY id', [sessionID, since], Part),
      removedParts: (await this.pool.query<{ id: string }>('SELECT id FROM part_removed WHERE session_id = $1 AND rev > $2 ORDER BY rev', [sessionID, since])).rows.map((row) => row.id),
    };
  }

  async waitForChange(sessionID: string, since: number, options: WaitOptions): Promise<void> {
    return this.closed ? undefined : this.changeFeed.wait(sessionID, since, options);
  }

  async feed(since: number, limit = DEFAULT_FEED_LIMIT): Promise<StoreFeed> {
    return readFeed(this.pool, since, await this.committedCursor(), limit);
  }

  async waitForFeed(since: number, options: WaitOptions): Promise<void> {
    return this.closed ? undefined : this.changeFeed.wait(undefined, since, options);
  }

  async recordFileRead(sessionID: string, path: string, mtimeMs: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO file_read (session_id, path, mtime) VALUES ($1, $2, $3)
       ON CONFLICT (session_id, path) DO UPDATE SET mtime = excluded.mtime`,
      [sessionID, path, mtimeMs],
    );
  }

  async fileReadMtime(sessionID: string, path: string): Promise<number | undefined> {
    const { rows } = await this.pool.query<{ mtime: number }>('SELECT mtime FROM file_read WHERE session_id = $1 AND path = $2', [sessionID, path]);
    return rows[0]?.mtime;
  }

  async lastFinishedStep(sessionID: string): Promise<AssistantMessage | undefined> {
    return queries.lastFinishedStep(this.pool, sessionID);
  }

  async usage(sessionID: string): Promise<{ tokens: Tokens; cost: number }> {
    return queries.usage(this.pool, sessionID);
  }

  async createBatch(batch: BatchRecord, tasks: BatchTaskInput[]): Promise<void> {
    const valid = BatchRecord.parse(batch);
    const inputs = tasks.map((task) => BatchTaskInput.parse(task));
    await this.revisioned(
      async (client) => {
        await batches.upsertBatch(client, valid);
        await batches.insertBatchTasks(client, valid.id, inputs);
      },
      () => valid.id,
    );
  }

  async saveBatch(batch: BatchRecord): Promise<void> {
    const valid = BatchRecord.parse(batch);
    await this.revisioned(
      (client) => batches.upsertBatch(client, valid),
      () => valid.id,
    );
  }

  async getBatch(id: string): Promise<BatchRecord | undefined> {
    return one(this.pool, 'SELECT data FROM batch WHERE id = $1', [id], BatchRecord);
  }

  async listBatches(limit = 50): Promise<BatchRecord[]> {
    return all(this.pool, 'SELECT data FROM batch ORDER BY time_created DESC, id DESC LIMIT $1', [limit], BatchRecord);
  }

  async batchTask(batchId: string, index: number): Promise<{ task: BatchTaskInput; outcome: BatchTaskOutcome } | undefined> {
    return (await batches.batchTasks(this.pool, batchId, index, 1)).find((row) => row.outcome.index === index);
  }

  async saveBatchOutcomes(batchId: string, outcomes: BatchTaskOutcome[]): Promise<void> {
    const valid = outcomes.map((outcome) => BatchTaskOutcome.parse(outcome));
    await this.revisioned(
      (client) => batches.saveBatchOutcomes(client, batchId, valid),
      () => batchId,
    );
  }

  async batchCounts(batchId: string): Promise<Record<BatchTaskOutcome['status'], number>> {
    return batches.batchCounts(this.pool, batchId);
  }

  async liveCounts(): Promise<LiveCounts> {
    return liveCounts(this.pool);
  }

  async batchTasks(batchId: string, page: { from?: number; limit?: number } = {}): Promise<{ task: BatchTaskInput; outcome: BatchTaskOutcome }[]> {
    return batches.batchTasks(this.pool, batchId, page.from ?? 0, page.limit ?? null);
  }

  async savePrompt(prompt: StoredPrompt): Promise<void> {
    await this.pool.query(
      `INSERT INTO prompt (id, session_id, time_created, text) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, text = excluded.text`,
      [prompt.id, prompt.sessionID ?? null, prompt.time.created, prompt.text],
    );
  }

  async getPrompt(id: string): Promise<StoredPrompt | undefined> {
    const { rows } = await this.pool.query<{ id: string; session_id: string | null; time_created: string; text: string }>(
      'SELECT id, session_id, time_created, text FROM prompt WHERE id = $1',
      [id],
    );
    const row = rows[0];
    return row && { id: row.id, ...(row.session_id ? { sessionID: row.session_id } : {}), text: row.text, time: { created: Number(row.time_created) } };
  }

  async saveTodos(sessionID: string, todos: Todo[]): Promise<void> {
    await this.pool.query('INSERT INTO todo (session_id, data) VALUES ($1, $2::jsonb) ON CONFLICT (session_id) DO UPDATE SET data = excluded.data', [
      sessionID,
      JSON.stringify(z.array(Todo).parse(todos)),
    ]);
  }

  async todos(sessionID: string): Promise<Todo[]> {
    return (await one(this.pool, 'SELECT data FROM todo WHERE session_id = $1', [sessionID], z.array(Todo))) ?? [];
  }

  async savePermissionRequest(request: PermissionRequestRecord): Promise<void> {
    const valid = PermissionRequestRecord.parse(request);
    await this.revisioned(
      (client) => permissions.upsertPermissionRequest(client, valid),
      () => valid.sessionID,
    );
  }

  async getPermissionRequest(id: string): Promise<PermissionRequestRecord | undefined> {
    return one(this.pool, 'SELECT data FROM permission_request WHERE id = $1', [id], PermissionRequestRecord);
  }

  async permissionRequests(filter: { status?: PermissionRequestRecord['status']; rootID?: string } = {}): Promise<PermissionRequestRecord[]> {
    return permissions.permissionRequests(this.pool, filter);
  }

  async approvedRules(rootID: string): Promise<PermissionRule[]> {
    return permissions.approvedRules(this.pool, rootID);
  }

  async addApprovedRules(rootID: string, rules: PermissionRule[]): Promise<void> {
    await this.transaction((client) => permissions.addApprovedRules(client, rootID, rules));
  }

  async saveWorkspaceSnapshot(id: string, snapshot: WorkspaceSnapshot): Promise<void> {
    const data = JSON.stringify(WorkspaceSnapshot.parse(snapshot));
    await this.pool.query('INSERT INTO workspace_snapshot (id, data) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [id, data]);
  }

  async workspaceSnapshot(id: string): Promise<WorkspaceSnapshot | undefined> {
    const { rows } = await this.pool.query<{ data: string }>('SELECT data FROM workspace_snapshot WHERE id = $1', [id]);
    return rows[0] ? WorkspaceSnapshot.parse(JSON.parse(rows[0].data)) : undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.changeFeed.close();
    await this.pool.end();
  }
}
