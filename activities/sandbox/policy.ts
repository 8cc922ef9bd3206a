import { lstat, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { SandboxConfig } from '../../core/config/sandbox-config.js';
import { configGuard, type ConfigGuard } from './config-guard.js';
import { defaultHiddenPaths } from './hidden-paths.js';

/** What one sandboxed process may touch. Paths are real (links resolved) and exist. */
export interface SandboxPolicy {
  /** The session's workspace: readable and writable. */
  workspace: string;
  /** Writable besides the workspace (configured, or granted to this call by a person). */
  writable: string[];
  /** Paths of the host's `/tmp` shown read-only over the sandbox's own (a local MCP server's script). */
  shownFromHostTmp: string[];
  /** Not readable at all. */
  hidden: string[];
  /** Hosts the proxy lets through; none means no network. */
  allowedHosts: string[];
  /** Loom's configuration inside the writable paths: read-only (see config-guard.ts). */
  config: ConfigGuard;
}

/**
 * The sandbox a process in `workspace` gets from its configuration: the workspace and the
 * configured `write` paths writable, the defaults (hidden-paths.ts) and `deny` hidden, the hosts
 * of `network.allow` reachable. `granted` are folders a person allowed this call to reach
 * (`external_directory`): writable too. Paths that do not exist are left out (nothing to mount).
 * Loom's configuration stays read-only inside whatever is writable.
 */
export async function sandboxPolicy(
  config: SandboxConfig,
  place: {
    workspace: string;
    dataDir: string;
    env: NodeJS.ProcessEnv;
    granted?: string[];
    shownFromHostTmp?: string[];
  },
): Promise<SandboxPolicy> {
  const home = place.env.HOME || homedir();
  const fromConfig = (path: string) =>
    path === '~' || path.startsWith('~/')
      ? home + path.slice(1)
      : isAbsolute(path)
        ? path
        : resolve(place.workspace, path);
  const workspace = (await existing(place.workspace)) ?? place.workspace;
  const writable = await existingAll([...(config.write ?? []).map(fromConfig), ...(place.granted ?? [])]);
  const hidden = await existingAll([
    ...(await defaultHiddenPaths(workspace, place.dataDir, place.env)),
    ...(config.deny ?? []).map(fromConfig),
  ]);
  const others = writable.filter((path) => path !== workspace);
  return {
    workspace,
    writable: others,
    shownFromHostTmp: (await existingAll(place.shownFromHostTmp ?? [])).filter((path) => path.startsWith('/tmp/')),
    // Hiding a folder the workspace is in would hide the workspace.
    hidden: hidden.filter((path) => path !== workspace && !workspace.startsWith(`${path}/`)),
    allowedHosts: config.network?.allow ?? [],
    config: await configGuard(workspace, others),
  };
}

async function existing(path: string): Promise<string | undefined> {
  try {
    await lstat(path);
    return await realpath(path);
  } catch {
    return undefined;
  }
}

async function existingAll(paths: string[]): Promise<string[]> {
  const found = await Promise.all(paths.map(existing));
  return [...new Set(found.filter((path): path is string => path !== undefined))];
}
