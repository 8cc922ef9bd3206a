import type { Dirent } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import {
  ALWAYS_IGNORED,
  MAX_FILE_BYTES,
  includePattern,
  invalidRegex,
  searchTarget,
  type ContentMatch,
  type SearchBackend,
  type SearchTarget,
} from './backend.js';
import { extraRules, IgnoreRules } from './ignore-rules.js';

const SKIPPED = new Set(ALWAYS_IGNORED);
/** Files read at once while searching content. */
const READERS = 8;

/** Thrown by a walk that would visit more entries than it was allowed. */
export class WalkBudgetExceeded extends Error {}

/** The search without ripgrep: a walk of the tree in Node, reading ignore files as it goes. */
export const jsBackend = walkingBackend(Infinity);

/**
 * A walk in Node that gives up with `WalkBudgetExceeded` once it has seen `budget` entries
 * (files and folders), or, for a content search, would read more than `budget / 10` files.
 */
export function walkingBackend(budget: number): SearchBackend {
  return {
    name: 'js',
    async listFiles(root, options) {
      const target = await searchTarget(root, options.glob, options);
      return target ? walk(target, options.signal, extraRules(root, options.ignore), budget) : [];
    },
    searchContent: (root, options) => searchContent(root, options, budget),
  };
}

async function searchContent(
  root: string,
  options: Parameters<SearchBackend['searchContent']>[1],
  budget: number,
): Promise<ContentMatch[]> {
  let regex: RegExp;
  try {
    regex = new RegExp(options.pattern);
  } catch (error) {
    throw invalidRegex(options.pattern, (error as Error).message);
  }
  const target = await searchTarget(root, includePattern(options.include), options);
  const files = target ? await walk(target, options.signal, () => false, budget) : [];
  if (files.length > budget / 10) throw new WalkBudgetExceeded(`${files.length} files to search`);
  const matches: ContentMatch[] = [];
  let next = 0;
  const reader = async () => {
    while (next < files.length) {
      const path = files[next++];
      options.signal.throwIfAborted();
      const content = await readText(path);
      content?.split('\n').forEach((text, index, lines) => {
        // The empty string after a final newline is not a line.
        if (index === lines.length - 1 && text === '') return;
        if (regex.test(text)) matches.push({ path, line: index + 1, text });
      });
    }
  };
  await Promise.all(Array.from({ length: READERS }, reader));
  return matches;
}

/** The wanted files under the target, never following symlinks, checking `signal` in each folder. */
async function walk(
  target: SearchTarget,
  signal: AbortSignal,
  excluded: (path: string, isDir: boolean) => boolean,
  budget: number,
): Promise<string[]> {
  signal.throwIfAborted();
  let seen = 0;
  if (target.file) return target.matches(relative(target.dir, target.file)) ? [target.file] : [];
  const files: string[] = [];
  const visit = async (dir: string, rules: IgnoreRules, depth: number): Promise<void> => {
    signal.throwIfAborted();
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return; // Gone or unreadable: skipped, as ripgrep does.
    }
    seen += entries.length;
    if (seen > budget) throw new WalkBudgetExceeded(`more than ${budget} entries under ${target.dir}`);
    const inner = await rules.enter(dir, entries);
    const folders: Promise<void>[] = [];
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue;
      const isDir = entry.isDirectory();
      if (!isDir && !entry.isFile()) continue;
      const path = join(dir, entry.name);
      if (excluded(path, isDir) || inner.ignores(path, isDir)) continue;
      if (isDir) {
        if (target.maxDepth === undefined || depth < target.maxDepth) folders.push(visit(path, inner, depth + 1));
      } else if (target.matches(relative(target.dir, path))) {
        files.push(path);
      }
    }
    await Promise.all(folders);
  };
  await visit(target.dir, await IgnoreRules.above(target.boundary, target.dir), 1);
  return files;
}

/** A file's text, or undefined for binary files (a NUL byte) and files over the size limit. */
async function readText(path: string): Promise<string | undefined> {
  try {
    if ((await stat(path)).size > MAX_FILE_BYTES) return undefined;
    const bytes = await readFile(path);
    return bytes.includes(0) ? undefined : bytes.toString('utf8');
  } catch {
    return undefined;
  }
}
