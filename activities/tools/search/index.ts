import { stat } from 'node:fs/promises';
import type { LoomConfig } from '../../../core/config/config.js';
import { withoutCredentials } from '../shell/tool-env.js';
import { findRipgrep } from './ripgrep.js';
import type { SearchBackend } from './backend.js';
import { jsBackend } from './js-backend.js';
import { smallTreesInNode } from './small-trees-in-node.js';
import { ripgrepBackend } from './ripgrep-backend.js';

export type { ContentMatch, SearchBackend } from './backend.js';

/**
 * ripgrep when one is found (or installed), for all but small trees; else the walk in Node.
 * ripgrep runs unconfined in the worker, so it is found, installed and run with the worker's own
 * environment (`workerEnv`, credentials hidden), never the project's `shell_env`: a project cannot
 * name the program (`LOOM_RIPGREP`, `PATH`, `LOOM_CACHE_DIR`) nor what it loads (`LD_PRELOAD`). Nor
 * its configuration file: `RIPGREP_CONFIG_PATH` is dropped (and ripgrep runs with `--no-config`).
 */
export async function searchBackend(workerEnv: NodeJS.ProcessEnv, config: LoomConfig): Promise<SearchBackend> {
  const env = withoutCredentials(workerEnv, config);
  delete env.RIPGREP_CONFIG_PATH;
  const rg = await findRipgrep(env);
  return rg ? smallTreesInNode(ripgrepBackend(rg, env)) : jsBackend;
}

export interface DatedFile {
  path: string;
  mtime: number;
}

/** The files with their modification times, most recent first; files gone meanwhile are dropped. */
export async function newestFirst(paths: string[]): Promise<DatedFile[]> {
  const dated = await Promise.all(
    paths.map(async (path) => {
      const info = await stat(path).catch(() => undefined);
      return info && { path, mtime: info.mtimeMs };
    }),
  );
  return dated
    .filter((file): file is DatedFile => file !== undefined)
    .sort((a, b) => b.mtime - a.mtime || a.path.localeCompare(b.path));
}
