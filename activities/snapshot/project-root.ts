import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The folder a session's snapshots cover: the git repository around its directory (so the
 * repository's `.gitignore` files apply wherever in it the session runs), else the directory itself.
 */
export function snapshotRoot(directory: string): string {
  for (let folder = directory; ; folder = dirname(folder)) {
    if (existsSync(join(folder, '.git'))) return folder;
    if (dirname(folder) === folder) return directory;
  }
}
