import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { PostgresSessionStore } from '../../activities/store/postgres/store.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import type { SessionStore } from '../../activities/store/store.js';
import { startTestPostgres, type TestPostgres } from './postgres-server.js';

export type TestStoreKind = 'sqlite' | 'postgres';

/** `LOOM_TEST_STORE=postgres` runs the workflow and e2e tests on PostgreSQL; SQLite otherwise. */
export function testStoreKind(): TestStoreKind {
  const kind = process.env.LOOM_TEST_STORE || 'sqlite';
  if (kind !== 'sqlite' && kind !== 'postgres')
    throw new Error(`LOOM_TEST_STORE must be "sqlite" or "postgres" (it is "${kind}")`);
  return kind;
}

export interface TestStore {
  store: SessionStore;
  /** What CLI and worker processes need to open the same store (`LOOM_STORE_URL`). */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** The store a test env uses: the SQLite file in its data folder, or a fresh PostgreSQL database. */
export async function openTestStore(dataDir: string): Promise<TestStore> {
  if (testStoreKind() === 'sqlite') {
    const store = new SqliteSessionStore(join(dataDir, 'loom.db'));
    return { store, env: {}, close: () => store.close() };
  }
  const server = await acquireServer();
  try {
    const database = await createDatabase(server.url);
    const store = await PostgresSessionStore.open(database.url);
    return {
      store,
      env: { LOOM_STORE_URL: database.url },
      async close() {
        await store.close();
        await database.drop();
        await releaseServer();
      },
    };
  } catch (error) {
    await releaseServer();
    throw error;
  }
}

// The run's server when the project's global setup started one; else one per test process,
// started with the first env and stopped with the last.
let own: Promise<TestPostgres> | undefined;
let users = 0;

async function acquireServer(): Promise<{ url: string }> {
  const provided = inject('postgresUrl');
  if (provided) return { url: provided };
  users++;
  own ??= startTestPostgres();
  try {
    return await own;
  } catch (error) {
    users--;
    own = undefined;
    throw error;
  }
}

async function releaseServer(): Promise<void> {
  if (inject('postgresUrl') || !own || --users > 0) return;
  const server = own;
  own = undefined;
  await (await server).stop();
}

let counter = 0;

async function createDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `loom_env_${process.pid}_${Date.now()}_${counter++}`;
  await admin(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // FORCE: a CLI or worker process killed by the test may still hold a connection.
    drop: () => admin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
