import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { projectEntries } from '../../config/project-entries.js';

/** Folders a walk of the project does not go into. */
const SKIPPED = new Set(['node_modules', '.git', 'dist', 'build', '.venv', 'venv', '__pycache__', 'target']);
/** The walk's bounds: a suggestion is worth a few milliseconds, not a scan of a monorepo. */
const MAX_ENTRIES = 5_000;
const MAX_DEPTH = 6;
const SUGGESTIONS = 3;

/**
 * Paths in the project that look like one that does not exist, closest first: the same name
 * anywhere (`calc.py` for `src/calc.py` or `path/to/calc.py`), then names that contain it or that
 * it contains (`calc_test.py`). Small models invent folders; the file is usually there by its name.
 */
async function closestPaths(project: string, missing: string, kind: 'file' | 'folder'): Promise<string[]> {
  const wanted = basename(missing).toLowerCase();
  const stem = (name: string) => basename(name, extname(name)).toLowerCase();
  const exact: string[] = [];
  const similar: string[] = [];
  let seen = 0;
  let level = [project];
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0 && seen < MAX_ENTRIES; depth++) {
    const next: string[] = [];
    for (const folder of level) {
      const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (++seen > MAX_ENTRIES) break;
        const path = join(folder, entry.name);
        if (entry.isDirectory() && !SKIPPED.has(entry.name) && !entry.name.startsWith('.')) next.push(path);
        if (entry.isDirectory() !== (kind === 'folder')) continue;
        const name = entry.name.toLowerCase();
        if (name === wanted) exact.push(path);
        else if (stem(name).length >= 3 && (stem(name).includes(stem(wanted)) || stem(wanted).includes(stem(name))))
          similar.push(path);
      }
    }
    level = next;
  }
  return [...exact, ...similar].slice(0, SUGGESTIONS);
}

/**
 * `<what>`, then what the model should try instead: the paths that look like the missing one, or
 * when none does, what the nearest existing folder above it (in the project) holds.
 */
export async function explainMissing(
  what: string,
  project: string,
  missing: string,
  kind: 'file' | 'folder',
): Promise<string> {
  const paths = await closestPaths(project, missing, kind);
  if (paths.length > 0) return `${what}\n\nDid you mean one of these?\n${paths.join('\n')}`;
  let folder = dirname(missing);
  while (folder !== project && folder.startsWith(`${project}/`) && !(await isFolder(folder))) folder = dirname(folder);
  if (folder !== project && !folder.startsWith(`${project}/`)) return what;
  const names = projectEntries(folder);
  return names.length === 0 ? what : `${what}\n\n${folder} holds: ${names.join(', ')}`;
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}
