import { lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { restoreFiles } from './restore.js';
import { safeGit } from './safe-git.js';
import { nulFields, type ShadowGit } from './shadow-git.js';
import { writeWhole } from './write-whole.js';

/** What applying a snapshot's changes to the project did, file by file. */
export interface ApplyResult {
  /** Files that were as the base had them, now as the snapshot has them. */
  applied: string[];
  /** Text files changed on both sides, merged without a conflict. */
  merged: string[];
  /** Files already as the snapshot has them. */
  unchanged: string[];
  /** Files changed on both sides that could not be merged: left as they are. */
  conflicts: string[];
}

interface Entry {
  mode: string;
  blob: string;
}

/**
 * Brings the project's files at `paths` from how the snapshot `base` has them to how `tree` has
 * them. A file still as in `base` takes `tree`'s version; a file changed since (by a person, or by
 * another task applied before) is merged three ways when both are text and the merge is clean,
 * else reported as a conflict and left alone. Every file is written whole.
 */
export async function applyChanges(git: ShadowGit, base: string, tree: string, paths: string[]): Promise<ApplyResult> {
  const result: ApplyResult = { applied: [], merged: [], unchanged: [], conflicts: [] };
  if (paths.length === 0) return result;
  const [from, to, onDisk] = await Promise.all([
    entries(git, base, paths),
    entries(git, tree, paths),
    diskBlobs(git, paths),
  ]);
  const clean: string[] = [];
  for (const path of paths) {
    const disk = onDisk.get(path);
    if (disk === to.get(path)?.blob) result.unchanged.push(path);
    else if (disk === from.get(path)?.blob) clean.push(path);
    else {
      const merged = await mergeInto(git, path, from.get(path), to.get(path));
      result[merged ?? 'conflicts'].push(path);
    }
  }
  // Checked again as each is written: a file changed meanwhile is a conflict too.
  const restored = await restoreFiles(git, tree, clean, { expected: base });
  result.applied.push(...restored.restored);
  result.conflicts.push(...restored.conflicts);
  result.conflicts.sort();
  return result;
}

async function entries(git: ShadowGit, tree: string, paths: string[]): Promise<Map<string, Entry>> {
  const found = new Map<string, Entry>();
  for (const line of nulFields(await git.run(['ls-tree', '-z', '--full-tree', tree, '--', ...paths]))) {
    const [meta, path] = line.split('\t');
    const [mode, , blob] = meta.split(' ');
    found.set(path, { mode, blob });
  }
  return found;
}

/** The blob of each regular file at `paths` on disk (a missing file, or anything else, has none). */
async function diskBlobs(git: ShadowGit, paths: string[]): Promise<Map<string, string>> {
  const present = paths.filter((path) => regularFile(join(git.workTree, path)));
  if (present.length === 0) return new Map();
  const hashes = (await git.run(['hash-object', '--stdin-paths'], present.join('\n'))).toString().trim().split('\n');
  return new Map(present.map((path, index) => [path, hashes[index]]));
}

/**
 * Merges the snapshot's change of a text file into the file on disk: `merged`, `unchanged` when
 * the file already holds the change, undefined when it cannot merge cleanly.
 */
async function mergeInto(
  git: ShadowGit,
  path: string,
  from?: Entry,
  to?: Entry,
): Promise<'merged' | 'unchanged' | undefined> {
  const file = join(git.workTree, path);
  const text = (entry?: Entry) => entry && (entry.mode === '100644' || entry.mode === '100755');
  if (!text(from) || !text(to) || !regularFile(file)) return undefined;
  const scratch = mkdtempSync(join(tmpdir(), 'loom-merge-'));
  try {
    writeFileSync(join(scratch, 'base'), await git.run(['cat-file', 'blob', from!.blob]));
    writeFileSync(join(scratch, 'theirs'), await git.run(['cat-file', 'blob', to!.blob]));
    const merged = await mergeFile(file, scratch);
    if (merged === undefined) return undefined;
    if (merged.equals(readFileSync(file))) return 'unchanged';
    writeWhole(file, merged, { mode: lstatSync(file).mode & 0o777 });
    return 'merged';
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * `git merge-file`'s result for `current` with the `base` and `theirs` of `scratch`, when it merged
 * without conflicts (binary files never do). It runs in the scratch folder, so no repository
 * around the worker's folder lends it its configuration.
 */
async function mergeFile(current: string, scratch: string): Promise<Buffer | undefined> {
  const [base, theirs] = [join(scratch, 'base'), join(scratch, 'theirs')];
  return safeGit(['merge-file', '--stdout', '--quiet', current, base, theirs], {
    cwd: scratch,
    where: `for ${current}`,
    env: { GIT_CEILING_DIRECTORIES: dirname(scratch) },
  }).catch(() => undefined);
}

function regularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}
