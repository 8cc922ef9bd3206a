import { storeFile } from '../process/paths.js';
import { SqliteSessionStore } from './sqlite/store.js';
import type { SessionStore } from './store.js';

export interface StoreSettings {
  /** Where the embedded SQLite store lives when no URL is given. */
  dataDir: string;
  /** A `postgres://` or `postgresql://` URL selects PostgreSQL. */
  storeUrl?: string;
  /** Where `storeUrl` came from, for messages: `LOOM_STORE_URL` (the default) or `store.url in <file>`. */
  storeUrlSource?: string;
}

/** The session store the settings name: PostgreSQL for a URL, else the SQLite file in the data folder. */
export async function openSessionStore(settings: StoreSettings): Promise<SessionStore> {
  if (!settings.storeUrl) return new SqliteSessionStore(storeFile(settings.dataDir));
  const source = settings.storeUrlSource ?? 'LOOM_STORE_URL';
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(settings.storeUrl)?.[1];
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    // Only the scheme is shown: the rest of the URL may hold a password.
    throw new Error(
      `${source} must start with postgres:// or postgresql:// (it starts with "${scheme ?? settings.storeUrl.slice(0, 10)}…")`,
    );
  }
  // Loaded only for PostgreSQL: a CLI command on SQLite starts without the driver.
  const { PostgresSessionStore } = await import('./postgres/store.js');
  return PostgresSessionStore.open(settings.storeUrl, { source });
}
