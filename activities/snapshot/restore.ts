import { existsSync, lstatSync, realpathSync, rmSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { nulFields, type ShadowGit } from './shadow-git.js';
import { writeWhole } from './write-whole.js';

/** What restoring files did: those put back, and those left alone because a person changed them since. */
export interface RestoreResult {
  restored: string[];
  conflicts: string[];
}

interface TreeEntry {
  mode: string;
  blob: string;
}

/**
 * Puts the files at `paths` back as they were in the snapshot `target`: written, or deleted where
 * `target` has no such file; nothing else in the project is touched. A file that is neither as the
 * snapshot `expected` holds it nor as `target` does (someone changed it after the agent) is a
 * conflict and left as it is, unless `force`; one already as `target` holds it counts as restored,
 * so a restore that is run again after an interruption finishes what it started. Each file is
 * replaced whole (written beside it, then renamed over it), so a process killed midway leaves every
 * file either restored or as it was.
 */
export async function restoreFiles(
  git: ShadowGit,
  target: string,
  paths: string[],
  options: { expected?: string; force?: boolean } = {},
): Promise<RestoreResult> {
  const conflicts = await restoreConflicts(git, target, paths, options);
  const inside = paths.filter((path) => staysInside(git.workTree, path));
  const wanted = await treeEntries(git, target, inside);
  const restored: string[] = [];
  for (const path of inside) {
    if (conflicts.has(path)) continue;
    const entry = wanted.get(path);
    if (entry) await writeEntry(git, path, entry);
    else removeFile(join(git.workTree, path));
    restored.push(path);
  }
  return { restored, conflicts: paths.filter((path) => conflicts.has(path)) };
}

/** The paths `restoreFiles` would leave alone, as it would find them. */
export async function restoreConflicts(
  git: ShadowGit,
  target: string,
  paths: string[],
  options: { expected?: string; force?: boolean } = {},
): Promise<Set<string>> {
  // Never through a link out of the project (one an agent made where a folder was), nor up out of it.
  const conflicts = new Set(paths.filter((path) => !staysInside(git.workTree, path)));
  const inside = paths.filter((path) => !conflicts.has(path));
  if (options.expected && !options.force) {
    const changed = await changedSince(git, options.expected, inside);
    for (const path of await changedSince(git, target, [...changed])) conflicts.add(path);
  }
  return conflicts;
}

/** Whether writing `path` lands in the work tree: no `..` out of it, no folder on the way that links elsewhere. */
function staysInside(workTree: string, path: string): boolean {
  const root = realpathSync(workTree);
  const file = resolve(root, path);
  if (!file.startsWith(root + sep)) return false;
  let folder = dirname(file);
  while (!existsSync(folder)) folder = dirname(folder);
  const real = realpathSync(folder);
  return real === root || real.startsWith(root + sep);
}

/** The entries of the paths in a snapshot's tree, by path (a path the tree lacks has none). */
async function treeEntries(git: ShadowGit, tree: string, paths: string[]): Promise<Map<string, TreeEntry>> {
  const entries = new Map<string, TreeEntry>();
  if (paths.length === 0) return entries;
  for (const line of nulFields(await git.run(['ls-tree', '-z', '--full-tree', tree, '--', ...paths]))) {
    const [meta, path] = line.split('\t');
    const [mode, , blob] = meta.split(' ');
    entries.set(path, { mode, blob });
  }
  return entries;
}

/** The paths whose file on disk is not what the snapshot holds (changed, created or deleted since). */
async function changedSince(git: ShadowGit, snapshot: string, paths: string[]): Promise<Set<string>> {
  const expected = await treeEntries(git, snapshot, paths);
  const present = paths.filter((path) => isFile(join(git.workTree, path)));
  const hashes =
    present.length > 0
      ? (await git.run(['hash-object', '--stdin-paths'], present.join('\n'))).toString().trim().split('\n')
      : [];
  const onDisk = new Map(present.map((path, index) => [path, hashes[index]]));
  return new Set(paths.filter((path) => onDisk.get(path) !== expected.get(path)?.blob));
}

async function writeEntry(git: ShadowGit, path: string, entry: TreeEntry): Promise<void> {
  const file = join(git.workTree, path);
  const content = await git.run(['cat-file', 'blob', entry.blob]);
  // A folder where the file should be (the agent replaced a file by a folder) goes first.
  if (existsSync(file) && lstatSync(file).isDirectory()) rmSync(file, { recursive: true, force: true });
  writeWhole(file, content, { symlink: entry.mode === '120000', mode: entry.mode === '100755' ? 0o755 : 0o644 });
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
