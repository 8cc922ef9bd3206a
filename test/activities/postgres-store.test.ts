import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postgresMigrations } from '../../activities/store/postgres-migrations.js';
import { PostgresSessionStore } from '../../activities/store/postgres.js';
import { freePort } from '../support/free-port.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres-server.js';
import { describeStoreContract, session } from '../support/store-contract.js';

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
      new RegExp(`^Cannot open the session store: PostgreSQL database "loomdb" on host 127\\.0\\.0\\.1:${port} \\(LOOM_STORE_URL\\): .*ECONNREFUSED`),
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
