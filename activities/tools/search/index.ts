import { stat } from 'node:fs/promises';
import { findRipgrep } from '../ripgrep.js';
import type { SearchBackend } from './backend.js';
import { jsBackend } from './js-backend.js';
import { smallTreesInNode } from './small-trees-in-node.js';
import { ripgrepBackend } from './ripgrep-backend.js';

export type { ContentMatch, SearchBackend } from './backend.js';

/**
 * ripgrep when one is found (or installed), for all but small trees; else the walk in Node. `env` is
 * a tool environment (`toolEnvironment`): ripgrep, and pip installing it, run with it.
 */
export async function searchBackend(env: NodeJS.ProcessEnv): Promise<SearchBackend> {
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
