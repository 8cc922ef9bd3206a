import { lstatSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Whether a folder on the way from the work tree to `path` (relative to it) is a symbolic link: a
 * file there is not in the project, whatever the link leads to. An agent that replaces a folder by
 * a link has, as far as snapshots and restores go, deleted the files that were in it. `seen`
 * remembers folders already looked at, for many paths in a row.
 */
export function beyondLink(workTree: string, path: string, seen = new Map<string, boolean>()): boolean {
  const folders = path.split('/').slice(0, -1);
  let at = '';
  for (const name of folders) {
    at = at ? `${at}/${name}` : name;
    let link = seen.get(at);
    if (link === undefined) {
      link = isLink(join(workTree, at));
      seen.set(at, link);
    }
    if (link) return true;
  }
  return false;
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
