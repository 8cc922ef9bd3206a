import pg from 'pg';
import { migratePostgres } from './migrations.js';
import { errorMessage } from '../../../core/text/error-message.js';

export interface ConnectOptions {
  /** The most connections the pool opens. */
  max?: number;
  /** Where the URL came from, for messages: `LOOM_STORE_URL` (the default) or a config file's key. */
  source?: string;
}

/** Where a `postgres://` URL points, for messages: host, port and database, never the password. */
export function describePostgresUrl(
  url: string,
  source = 'LOOM_STORE_URL',
): { host: string; database: string; display: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${source} is not a valid URL (expected postgres://user:password@host:5432/database)`);
  }
  const host = parsed.hostname ? `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}` : 'localhost';
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || parsed.username || 'postgres';
  const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
  return { host, database, display: `postgres://${user}${host}/${database}` };
}

/** The reason a connection failed, without the driver's stack or anything from the URL's password. */
function reasonOf(error: unknown, password: string): string {
  const code = (error as { code?: string }).code;
  let message = errorMessage(error);
  if (error instanceof AggregateError && error.errors.length > 0)
    message = error.errors.map((e: Error) => e.message).join('; ');
  if (password) message = message.split(password).join('***');
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/**
 * A pool for the session store, with the schema brought up to date. Fails with an error that names
 * the host and database (and what went wrong) when the server cannot be reached or refuses us.
 */
export async function connectPostgres(
  url: string,
  options: ConnectOptions = {},
): Promise<{ pool: pg.Pool; display: string }> {
  const source = options.source ?? 'LOOM_STORE_URL';
  const { host, database, display } = describePostgresUrl(url, source);
  const password = decodeURIComponent(new URL(url).password);
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, connectionTimeoutMillis: 10_000 });
  // An idle connection dropped by the server (a restart, a failover) is replaced on next use;
  // without a listener the pool's 'error' event would end the process.
  pool.on('error', () => undefined);
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new Error(
      `Cannot open the session store: PostgreSQL database "${database}" on host ${host} (${source}): ${reasonOf(error, password)}`,
    );
  }
  const ignore = () => undefined; // a server gone mid-migration fails the query below instead
  client.on('error', ignore);
  try {
    await migratePostgres(client, display);
  } catch (error) {
    client.off('error', ignore);
    client.release(true);
    await pool.end().catch(() => undefined);
    throw error;
  }
  client.off('error', ignore);
  client.release();
  return { pool, display };
}
