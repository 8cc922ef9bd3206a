import pg from 'pg';
import { ChangeWaiters, type Waiter } from '../change-waiters.js';
import type { Queryable } from './documents.js';
import type { WaitOptions } from '../change-feed.js';

/** The NOTIFY channel of session changes; its payload is `<revision> <session id>`. */
export const CHANGES_CHANNEL = 'loom_session_changes';
/** How the listening connection shows in `pg_stat_activity`. */
export const LISTENER_APPLICATION_NAME = 'loom change feed';
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more (and fails the transaction with it). */
export const MAX_PAYLOAD_BYTES = 7999;
/** Between attempts to listen again after the connection dropped (a restart, a failover). */
const RETRY_MS = 500;

/**
 * Tells listeners, once the transaction commits, that a session changed. Runs inside a
 * `revisioned` transaction, after its last `nextval('revision')`, so `currval` is its newest revision.
 */
export async function notifyChange(client: Queryable, sessionId: string): Promise<void> {
  // A session id this long cannot be announced; its followers find the change on their timeout.
  if (Buffer.byteLength(sessionId) + 21 > MAX_PAYLOAD_BYTES) return;
  await client.query(`SELECT pg_notify($1, currval('revision')::text || ' ' || $2)`, [CHANGES_CHANNEL, sessionId]);
}

/**
 * `waitForChange` for the PostgreSQL store: one connection per store LISTENs for every session
 * (opened on the first wait, shared by all waiters, opened again after it drops, closed with the
 * store). A waiter registers, then asks the database once whether its session already moved past
 * its cursor; with LISTEN active before that question, no commit falls between the two. Waiters
 * present while the connection was down are asked again once it is back.
 */
export class PostgresChangeWatcher {
  private readonly waiters = new ChangeWaiters();
  /** Set while connecting or connected; `listening` once LISTEN has taken effect. */
  private client: pg.Client | undefined;
  private listening = false;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly db: Queryable,
  ) {}

  /** Waits for a change of one session, or of anything in the store when `sessionID` is undefined. */
  wait(sessionId: string | undefined, since: number, options: WaitOptions): Promise<void> {
    if (this.closed) return Promise.resolve();
    const waiter = this.waiters.add(sessionId, since, options);
    if (this.listening) this.check(waiter);
    else this.listen();
    return waiter.settled;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.waiters.wakeAll();
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }

  private listen(): void {
    if (this.closed || this.client || this.retry) return;
    const client = new pg.Client({
      connectionString: this.url,
      application_name: LISTENER_APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
    });
    this.client = client;
    // A dropped connection emits 'error' (and then 'end'); without a listener it would end the process.
    client.on('error', () => this.dropped(client));
    client.on('end', () => this.dropped(client));
    client.on('notification', (message) => this.notified(message.payload));
    client
      .connect()
      .then(() => client.query(`LISTEN ${CHANGES_CHANNEL}`))
      .then(
        () => {
          if (this.client !== client) return;
          this.listening = true;
          // Commits while nobody listened were not announced: every waiter asks the database.
          for (const waiter of this.waiters.list()) this.check(waiter);
        },
        () => this.dropped(client),
      );
  }

  private dropped(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.listening = false;
    client.end().catch(() => undefined);
    // Nobody waiting: the next wait listens again. Otherwise retry; their timeouts cover the gap.
    if (this.closed || this.waiters.size === 0) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.waiters.size > 0) this.listen();
    }, RETRY_MS);
    this.retry.unref();
  }

  private notified(payload: string | undefined): void {
    const space = payload?.indexOf(' ') ?? -1;
    if (!payload || space < 0) return;
    const revision = Number(payload.slice(0, space));
    const sessionId = payload.slice(space + 1);
    for (const waiter of this.waiters.list()) {
      const theirs = waiter.sessionID === undefined || waiter.sessionID === sessionId;
      if (theirs && (Number.isNaN(revision) || revision > waiter.since)) waiter.wake();
    }
  }

  private check(waiter: Waiter): void {
    // A failed question (the server is restarting) leaves the waiter to the notification or its timeout.
    this.changedSince(waiter.sessionID, waiter.since).then(
      (changed) => {
        if (changed) waiter.wake();
      },
      () => undefined,
    );
  }

  /** Whether rows of the session (of any, when undefined) newer than the cursor are committed. */
  private changedSince(sessionId: string | undefined, since: number): Promise<boolean> {
    return sessionId === undefined ? anyChangeSince(this.db, since) : sessionChangedSince(this.db, sessionId, since);
  }
}

/**
 * Whether rows of the session (its messages, parts, own row, permission requests and removal
 * rows) newer than the cursor are committed; no lock.
 */
async function sessionChangedSince(db: Queryable, sessionId: string, since: number): Promise<boolean> {
  const { rows } = await db.query<{ changed: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM message WHERE session_id = $1 AND rev > $2)
         OR EXISTS (SELECT 1 FROM part WHERE session_id = $1 AND rev > $2)
         OR EXISTS (SELECT 1 FROM session WHERE id = $1 AND rev > $2)
         OR EXISTS (SELECT 1 FROM permission_request WHERE session_id = $1 AND rev > $2)
         OR EXISTS (SELECT 1 FROM part_removed WHERE session_id = $1 AND rev > $2)
         OR EXISTS (SELECT 1 FROM message_removed WHERE session_id = $1 AND rev > $2)
         OR EXISTS (SELECT 1 FROM session_removed WHERE id = $1 AND rev > $2) AS changed`,
    [sessionId, since],
  );
  return rows[0].changed;
}

/** Whether anything took a revision after the cursor (committed or not: a hint to look). */
async function anyChangeSince(db: Queryable, since: number): Promise<boolean> {
  const { rows } = await db.query<{ changed: boolean }>(
    'SELECT (CASE WHEN is_called THEN last_value ELSE 0 END) > $1 AS changed FROM revision',
    [since],
  );
  return rows[0].changed;
}
