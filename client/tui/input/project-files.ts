import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { ALWAYS_IGNORED } from '../../../activities/tools/search/backend.js';
import { IgnoreRules } from '../../../activities/tools/search/ignore-rules.js';

/** The most paths `listProjectFiles` returns unless told otherwise. */
export const PROJECT_FILES_LIMIT = 20_000;

/** Folders read at once. */
const READERS = 8;

/** The project's files and folders for `@` completion. */
export interface ProjectFiles {
  /** Paths relative to the project, `/`-separated, folders ending in `/`; shallower first, by name within a level. */
  readonly paths: string[];
  /** Whether the limit cut the listing short (the deepest paths are the ones left out). */
  readonly truncated: boolean;
}

/**
 * The files and folders of the project in `directory` a person may mention with `@`: what the
 * agents' `glob` and `list` tools see, leaving out what `.gitignore`/`.ignore` files (nested ones
 * too) exclude and the folders nobody wants (`.git`, `node_modules`, `dist`, … as in the search
 * tools), following no symlinks. The walk goes level by level and stops at `limit` paths, so a huge
 * tree costs no more than its first `limit` entries and what is kept is the shallow part that
 * completion ranks first. Walked in Node rather than by ripgrep: no process to start, and no chance
 * of the search tool's one-time ripgrep install writing over the TUI.
 */
export async function listProjectFiles(
  directory: string,
  options: { limit?: number; signal?: AbortSignal } = {},
): Promise<ProjectFiles> {
  const limit = options.limit ?? PROJECT_FILES_LIMIT;
  const root = resolve(directory);
  const paths: string[] = [];
  let level = [{ dir: root, rules: await IgnoreRules.above(root, root) }];
  while (level.length > 0) {
    const next: typeof level = [];
    for (let first = 0; first < level.length; first += READERS) {
      options.signal?.throwIfAborted();
      const batch = level.slice(first, first + READERS);
      const listed = await Promise.all(batch.map(({ dir, rules }) => listFolder(dir, rules)));
      for (const entries of listed) {
        for (const entry of entries) {
          if (paths.length >= limit) return { paths, truncated: true };
          const path = relative(root, entry.path).split(sep).join('/');
          paths.push(entry.rules ? `${path}/` : path);
          if (entry.rules) next.push({ dir: entry.path, rules: entry.rules });
        }
      }
    }
    level = next;
  }
  return { paths, truncated: false };
}

interface Entry {
  path: string;
  /** For a folder, the ignore rules inside it. */
  rules?: IgnoreRules;
}

async function listFolder(dir: string, rules: IgnoreRules): Promise<Entry[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return []; // Gone or unreadable: left out, as the search tools do.
  }
  const inner = await rules.enter(dir, entries);
  return entries
    .filter((entry) => (entry.isFile() || entry.isDirectory()) && !ALWAYS_IGNORED.includes(entry.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((entry) => ({ path: join(dir, entry.name), isDir: entry.isDirectory() }))
    .filter(({ path, isDir }) => !inner.ignores(path, isDir))
    .map(({ path, isDir }) => (isDir ? { path, rules: inner } : { path }));
}
