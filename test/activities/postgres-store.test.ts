import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LISTENER_APPLICATION_NAME } from '../../activities/store/postgres/change-watcher.js';
import { postgresMigrations } from '../../activities/store/postgres/migrations.js';
import { REVISION_LOCKS } from '../../activities/store/postgres/revisioned-statement.js';
import { PostgresSessionStore } from '../../activities/store/postgres/store.js';
import { freePort } from '../../testkit/network/free-port.js';
import { startTestPostgres, type TestPostgres } from '../../testkit/store/postgres-server.js';
import { describeStoreContract } from '../../testkit/store/store-contract.js';
import { session, textPart, textsOf, userMessage } from '../../testkit/store/store-records.js';

let server: TestPostgres;
let url: string;

beforeAll(async () => {
  server = await startTestPostgres();
});

afterAll(async () => {
  await server?.stop();
});

beforeEach(async () => {
  url = await server.createDatabase();
});

async function sql<T extends pg.QueryResultRow>(query: string, database = url): Promise<T[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    return (await client.query<T>(query)).rows;
  } finally {
    await client.end();
  }
}

describeStoreContract('PostgresSessionStore', () => PostgresSessionStore.open(url, { max: 4 }));

describe('PostgresSessionStore schema', () => {
  it('records the schema version once, however many stores opened the database at once', async () => {
    const stores = await Promise.all(Array.from({ length: 4 }, () => PostgresSessionStore.open(url, { max: 2 })));
    try {
      expect(await sql('SELECT version FROM loom_schema')).toEqual([{ version: postgresMigrations.length }]);
      await stores[0].saveSession(session('ses_a', 1));
      expect(await stores[3].getSession('ses_a')).toEqual(session('ses_a', 1));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('refuses a database from a newer Loom, naming the database but not the password', async () => {
    await (await PostgresSessionStore.open(url)).close();
    await sql(`UPDATE loom_schema SET version = ${postgresMigrations.length + 1}`);
    const where = new URL(url);
    const error = await PostgresSessionStore.open(url).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toBe(
      `Session store postgres://${where.username}@${where.host}${where.pathname} has schema version ${postgresMigrations.length + 1}, newer than this Loom (${postgresMigrations.length}). Upgrade Loom.`,
    );
    if (where.password) expect(error?.message).not.toContain(where.password);
  });
});

describe('PostgresSessionStore connection errors', () => {
  it('names the host and database of a server that does not answer', async () => {
    const port = await freePort();
    await expect(PostgresSessionStore.open(`postgres://loom:s3cret-pw@127.0.0.1:${port}/loomdb`)).rejects.toThrow(
      new RegExp(
        `^Cannot open the session store: PostgreSQL database "loomdb" on host 127\\.0\\.0\\.1:${port} \\(LOOM_STORE_URL\\): .*ECONNREFUSED`,
      ),
    );
  });

  it('names a database that does not exist, and a wrong password, without printing the password', async () => {
    const missing = new URL(url);
    missing.pathname = '/no_such_db';
    const noDb = await PostgresSessionStore.open(missing.toString()).catch((e: Error) => e);
    expect((noDb as Error).message).toMatch(/PostgreSQL database "no_such_db" on host .*does not exist/);

    const wrong = new URL(url);
    wrong.password = 'not-the-password-42';
    const badAuth = await PostgresSessionStore.open(wrong.toString()).catch((e: Error) => e);
    expect((badAuth as Error).message).toMatch(/^Cannot open the session store: PostgreSQL database "\w+" on host /);
    expect((badAuth as Error).message).not.toContain('not-the-password-42');
  });
});

/** Backend pids of the change-feed connections on the test's database. */
async function listeners(): Promise<number[]> {
  const rows = await sql<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = '${LISTENER_APPLICATION_NAME}' ORDER BY pid`,
  );
  return rows.map((row) => row.pid);
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('PostgresSessionStore change feed', () => {
  it('listens on one connection for all its waiters, and closes it with the store', async () => {
    const store = await PostgresSessionStore.open(url, { max: 2 });
    try {
      const waits = ['ses_a', 'ses_b', 'ses_c', 'ses_a'].map((id) => store.waitForChange(id, 0, { timeoutMs: 1_000 }));
      await until(async () => (await listeners()).length === 1);
      await Promise.all(waits);
      expect(await listeners()).toHaveLength(1);
    } finally {
      await store.close();
    }
    await until(async () => (await listeners()).length === 0);
  });

  it('listens again after its connection is killed (a restart), and wakes waiters on later writes', async () => {
    const [follower, worker] = await Promise.all([
      PostgresSessionStore.open(url, { max: 2 }),
      PostgresSessionStore.open(url, { max: 2 }),
    ]);
    try {
      await worker.saveMessage(userMessage('msg_1'));
      let { cursor } = await follower.changes('ses_a', 0);
      const first = follower.waitForChange('ses_a', cursor, { timeoutMs: 10_000 });
      await until(async () => (await listeners()).length === 1);
      await worker.savePart(textPart('prt_1', 'msg_1', 'one'));
      await first;
      cursor = (await follower.changes('ses_a', cursor)).cursor;

      const [killed] = await listeners();
      await sql(`SELECT pg_terminate_backend(${killed})`);
      const started = Date.now();
      const waiting = follower.waitForChange('ses_a', cursor, { timeoutMs: 10_000 });
      await until(async () => {
        const pids = await listeners();
        return pids.length === 1 && pids[0] !== killed;
      });
      await worker.savePart(textPart('prt_2', 'msg_1', 'two'));
      await waiting;
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(textsOf((await follower.changes('ses_a', cursor)).parts)).toEqual(['two']);

      // Still listening afterwards: the next write wakes the next waiter.
      cursor = (await follower.changes('ses_a', cursor)).cursor;
      const next = follower.waitForChange('ses_a', cursor, { timeoutMs: 10_000 });
      const again = Date.now();
      await worker.savePart(textPart('prt_3', 'msg_1', 'three'));
      await next;
      expect(Date.now() - again).toBeLessThan(8_000);
    } finally {
      await Promise.all([follower.close(), worker.close()]);
    }
  });

  it('wakes a waiter with an hour to wait when another store writes to its session', async () => {
    const [follower, worker] = await Promise.all([
      PostgresSessionStore.open(url, { max: 2 }),
      PostgresSessionStore.open(url, { max: 2 }),
    ]);
    try {
      await worker.saveMessage(userMessage('msg_1'));
      const { cursor } = await follower.changes('ses_a', 0);
      const waiting = follower.waitForChange('ses_a', cursor, { timeoutMs: 3_600_000 });
      await until(async () => (await listeners()).length === 1);
      await worker.savePart(textPart('prt_1', 'msg_1', 'new'));
      await waiting;
      expect(textsOf((await follower.changes('ses_a', cursor)).parts)).toEqual(['new']);
    } finally {
      await Promise.all([follower.close(), worker.close()]);
    }
  });

  it("reads a session's changes while another session's write is still open, and shows that write once committed", async () => {
    const store = await PostgresSessionStore.open(url, { max: 2 });
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    try {
      await store.saveMessage(userMessage('msg_a'));
      await store.saveMessage(userMessage('msg_b', 'ses_b'));
      const before = await store.changes('ses_b', 0);
      // A writer of ses_b as the store writes, left open.
      await writer.query('BEGIN');
      await writer.query(`SELECT 1 FROM (${REVISION_LOCKS}) AS locked`, ['ses_b']);
      await writer.query(
        `INSERT INTO part (id, message_id, session_id, rev, data) VALUES ($1, $2, $3, nextval('revision'), $4::jsonb)`,
        ['prt_b', 'msg_b', 'ses_b', JSON.stringify(textPart('prt_b', 'msg_b', 'open', 'ses_b'))],
      );

      await store.savePart(textPart('prt_a', 'msg_a', 'other session'));
      expect(textsOf((await store.changes('ses_a', 0)).parts)).toEqual(['other session']);
      const during = await store.changes('ses_b', before.cursor);
      expect(during.parts).toEqual([]);

      await writer.query('COMMIT');
      expect(textsOf((await store.changes('ses_b', during.cursor)).parts)).toEqual(['open']);
    } finally {
      await writer.end();
      await store.close();
    }
  });

  it("holds a second writer of the same session until the first commits, so a follower's cursor skips neither", async () => {
    const [store, follower] = await Promise.all([
      PostgresSessionStore.open(url, { max: 2 }),
      PostgresSessionStore.open(url, { max: 2 }),
    ]);
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    try {
      await store.saveMessage(userMessage('msg_1'));
      const { cursor } = await follower.changes('ses_a', 0);
      await writer.query('BEGIN');
      await writer.query(`SELECT 1 FROM (${REVISION_LOCKS}) AS locked`, ['ses_a']);
      await writer.query(
        `INSERT INTO part (id, message_id, session_id, rev, data) VALUES ($1, $2, $3, nextval('revision'), $4::jsonb)`,
        ['prt_1', 'msg_1', 'ses_a', JSON.stringify(textPart('prt_1', 'msg_1', 'first'))],
      );
      let saved = false;
      const second = store.savePart(textPart('prt_2', 'msg_1', 'second')).then(() => (saved = true));
      await until(
        async () =>
          (
            await sql(
              `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
            )
          ).length > 0,
      );
      expect(saved).toBe(false);
      const during = await follower.changes('ses_a', cursor);
      expect(during.parts).toEqual([]);

      await writer.query('COMMIT');
      await second;
      expect(textsOf((await follower.changes('ses_a', during.cursor)).parts)).toEqual(['first', 'second']);
    } finally {
      await writer.end();
      await Promise.all([store.close(), follower.close()]);
    }
  });

  it('skips the notification of a session id too long for a NOTIFY payload, and still saves', async () => {
    const store = await PostgresSessionStore.open(url, { max: 2 });
    try {
      const id = `ses_${'x'.repeat(8_000)}`;
      await store.saveMessage(userMessage('msg_1', id));
      expect((await store.changes(id, 0)).messages.map((m) => m.id)).toEqual(['msg_1']);
    } finally {
      await store.close();
    }
  });
});
