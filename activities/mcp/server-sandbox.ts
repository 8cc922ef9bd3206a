import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { McpServerConfig } from '../../core/tool-call/mcp.js';
import { DEFAULT_MCP_TIMEOUT_MS } from '../../core/config/mcp-config.js';
import type { SandboxConfig } from '../../core/config/sandbox-config.js';
import { cacheDir } from '../process/paths.js';

type LocalServer = Extract<McpServerConfig, { type: 'local' }>;

/** What a local MCP server's sandbox gives it by default, besides its configuration's. */
export interface ServerNeeds {
  /** Added to its sandbox configuration: a package runner's cache and registry. */
  sandbox: SandboxConfig;
  /** Its environment's additions (where the package runner keeps its cache). */
  env: Record<string, string>;
  /** Paths of the host's `/tmp` its command names (its script): shown read-only in the sandbox. */
  shownFromHostTmp: string[];
  /** `npx`, `uvx`, `bunx`: the program that fetches the server's package, when it is one. */
  runner?: string;
}

/**
 * How each package runner is given its packages: a cache of Loom's own for the server (writable;
 * the person's `~/.npm` stays read-only, so a server cannot change what `npx` runs outside the
 * sandbox) and its registry, taken from the variable that configures it.
 */
const RUNNERS: Record<
  string,
  { cacheVariable: string; registry: (env: Record<string, string | undefined>) => string[] }
> = {
  npx: { cacheVariable: 'npm_config_cache', registry: (env) => [hostOf(npmRegistry(env), 'registry.npmjs.org')] },
  bunx: {
    cacheVariable: 'BUN_INSTALL_CACHE_DIR',
    registry: (env) => [hostOf(env.BUN_CONFIG_REGISTRY ?? npmRegistry(env), 'registry.npmjs.org')],
  },
  uvx: {
    cacheVariable: 'UV_CACHE_DIR',
    registry: (env) => {
      const index = env.UV_DEFAULT_INDEX ?? env.UV_INDEX_URL;
      return index ? [hostOf(index, 'pypi.org')] : ['pypi.org', 'files.pythonhosted.org'];
    },
  },
};

/**
 * What a local server needs that a sandbox would refuse it: a server run by `npx`, `uvx` or `bunx`
 * gets its package cache and its registry, and one whose script lies in the host's `/tmp` sees it
 * (the sandbox's `/tmp` is its own).
 */
export async function serverNeeds(server: LocalServer, workerEnv: NodeJS.ProcessEnv): Promise<ServerNeeds> {
  const shownFromHostTmp = [...server.command.slice(1), server.cwd ?? '']
    .filter((arg) => arg.startsWith('/tmp/'))
    .map((path) => path.split('/').slice(0, 3).join('/'));
  const runnerName = basename(server.command[0]);
  const runner = RUNNERS[runnerName];
  if (!runner) return { sandbox: {}, env: {}, shownFromHostTmp };
  const env = { ...workerEnv, ...server.environment };
  const cache = join(cacheDir(workerEnv), 'mcp', runnerName, digest(server.command));
  await mkdir(cache, { recursive: true });
  return {
    sandbox: { write: [cache], network: { allow: runner.registry(env) } },
    env: { [runner.cacheVariable]: cache, ...(runnerName === 'npx' ? { npm_config_update_notifier: 'false' } : {}) },
    shownFromHostTmp,
    runner: runnerName,
  };
}

/** A package runner's first start downloads the package (npx prints nothing meanwhile): it gets longer, unless configured. */
const PACKAGE_RUNNER_START_MS = 120_000;

/** How long a server may take to start and answer MCP's handshake. */
export function startTimeoutMs(server: McpServerConfig): number {
  if (server.timeout !== undefined) return server.timeout;
  return server.type === 'local' && basename(server.command[0]) in RUNNERS
    ? PACKAGE_RUNNER_START_MS
    : DEFAULT_MCP_TIMEOUT_MS;
}

function npmRegistry(env: Record<string, string | undefined>): string | undefined {
  return env.npm_config_registry ?? env.NPM_CONFIG_REGISTRY;
}

/** `registry.example.com:8443` from a registry's URL (the proxy's allow list takes a host and a port). */
function hostOf(url: string | undefined, fallback: string): string {
  if (!url) return fallback;
  try {
    return new URL(url).host || fallback;
  } catch {
    return fallback;
  }
}

function digest(command: string[]): string {
  return createHash('sha256').update(JSON.stringify(command)).digest('hex').slice(0, 12);
}
