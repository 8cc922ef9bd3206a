import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where Loom keeps its data: `LOOM_DATA_DIR`, else the per-user data folder (like OpenCode's). */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LOOM_DATA_DIR) return env.LOOM_DATA_DIR;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'loom');
  if (process.platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'loom');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'loom');
}

export function storeFile(dir = dataDir()): string {
  return join(dir, 'loom.db');
}

/** The user's config folder (global `loom.json` lives here). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LOOM_CONFIG_DIR) return env.LOOM_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'loom');
}

/** Where full tool outputs are saved when what the model sees is cut. */
export function toolOutputDir(dir = dataDir()): string {
  return join(dir, 'tool-output');
}

/** Downloaded helpers (ripgrep) and other caches shared by every data folder of this user. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LOOM_CACHE_DIR) return env.LOOM_CACHE_DIR;
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'loom');
}

/**
 * Where Loom keeps the configuration files a sandboxed command created in a project (they are moved
 * out, since commands may not change Loom's configuration): one folder per session, one in it per
 * tool call; `loom rm` deletes the session's.
 */
export function refusedConfigDir(dir: string, sessionId: string, callId?: string): string {
  const session = join(dir, 'refused-config', sessionId);
  return callId === undefined ? session : join(session, callId.replace(/[^A-Za-z0-9_-]/g, '_'));
}

/** Where the shadow repositories of projects' snapshots live (see activities/snapshot/). */
export function snapshotsDir(dir = dataDir()): string {
  return join(dir, 'snapshots');
}
