import { ConfigError, configLayers } from '../activities/config/load.js';
import { dataDir } from '../activities/process/paths.js';

/** Where the CLI finds its task queue and the session store (Temporal itself: `ClientContext.target`). */
export interface ClientSettings {
  taskQueue: string;
  dataDir: string;
  /** The PostgreSQL session store shared by several machines (else SQLite in `dataDir`). */
  storeUrl: string | undefined;
  /** Where `storeUrl` came from: `LOOM_STORE_URL`, or `store.url in <config file>`. */
  storeUrlSource: string | undefined;
  /** Where `loom serve`'s web view is (`LOOM_WEB_URL`): runs link to their pages in the Temporal UI. */
  webUrl: string | undefined;
}

/** `cwd` is the project folder whose config (with the global one) may name the store. */
export function clientSettings(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ClientSettings {
  const store = storeUrlFrom(env, cwd);
  return {
    taskQueue: env.LOOM_TASK_QUEUE || 'loom',
    dataDir: dataDir(env),
    storeUrl: store?.url,
    storeUrlSource: store?.source,
    webUrl: webUrlFrom(env),
  };
}

/** `LOOM_WEB_URL`, checked: a link the Temporal UI shows must be an http(s) address. */
export function webUrlFrom(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.LOOM_WEB_URL?.trim();
  if (!value) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigError(
      `LOOM_WEB_URL must be an http:// or https:// address of \`loom serve\`, such as http://127.0.0.1:4096 (it is "${value}")`,
    );
  }
  return value.replace(/\/+$/, '');
}

/**
 * The session store's URL and where it was set: `LOOM_STORE_URL`, else `store.url` from the
 * config (the global folder, then the folders down to `cwd`; the last one that sets it wins), else
 * nothing, which means SQLite. Only JSON config is read, and only when the variable is unset.
 */
export function storeUrlFrom(env: NodeJS.ProcessEnv, cwd: string): { url: string; source: string } | undefined {
  if (env.LOOM_STORE_URL) return { url: env.LOOM_STORE_URL, source: 'LOOM_STORE_URL' };
  const layer = configLayers(cwd, env, { markdown: false }).findLast(
    (candidate) => candidate.config.store?.url !== undefined,
  );
  const url = layer?.config.store?.url;
  if (!layer || url === undefined) return undefined;
  // `{env:VAR}` of an unset variable leaves nothing; quietly using SQLite instead would split the sessions.
  if (!url.trim())
    throw new ConfigError(`${layer.source}: store.url is empty (if it is {env:…}, that variable is not set)`);
  return { url, source: `store.url in ${layer.source}` };
}
