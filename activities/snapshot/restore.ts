import { existsSync, lstatSync, realpathSync, rmSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { beyondLink } from './beyond-link.js';
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
  const wanted = await treeEntries(
    git,
    target,
    paths.filter((path) => !conflicts.has(path)),
  );
  const restored: string[] = [];
  // A folder's own path before the files in it: a link an agent put where the folder was is
  // replaced (or removed) before they are written.
  for (const path of [...paths].sort()) {
    if (conflicts.has(path)) continue;
    const entry = wanted.get(path);
    // Checked again as it is written, never through a link: a path under one (a link this restore
    // put back, say) is not in the project, which is right when the snapshot has no file there.
    if (beyondLink(git.workTree, path)) {
      if (entry) conflicts.add(path);
      else restored.push(path);
      continue;
    }
    if (!staysInside(git.workTree, path)) {
      conflicts.add(path);
      continue;
    }
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
  const root = realpathSync(git.workTree);
  // Never up out of the project.
  const conflicts = new Set(paths.filter((path) => !resolve(root, path).startsWith(root + sep)));
  if (options.expected && !options.force) {
    const changed = await changedSince(
      git,
      options.expected,
      paths.filter((path) => !conflicts.has(path)),
    );
    for (const path of await changedSince(git, target, [...changed])) conflicts.add(path);
  }
  // Never through a link out of the project (one an agent made where a folder was), unless the
  // link is itself restored first.
  const restoring = new Set(paths.filter((path) => !conflicts.has(path)));
  for (const path of restoring) {
    const replaced = ancestors(path).find((folder) => restoring.has(folder));
    if (!staysInside(git.workTree, replaced ?? path)) conflicts.add(path);
  }
  return conflicts;
}

/** The folders a relative path is in, outermost first: `a`, `a/b` for `a/b/c`. */
function ancestors(path: string): string[] {
  const names = path.split('/');
  return names.slice(0, -1).map((_, index) => names.slice(0, index + 1).join('/'));
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

/**
 * The entries of the paths in a snapshot's tree, by path: files and links only (a path the tree
 * lacks, or holds as a folder, has none).
 */
async function treeEntries(git: ShadowGit, tree: string, paths: string[]): Promise<Map<string, TreeEntry>> {
  const entries = new Map<string, TreeEntry>();
  if (paths.length === 0) return entries;
  for (const line of nulFields(await git.run(['ls-tree', '-z', '--full-tree', tree, '--', ...paths]))) {
    const [meta, path] = line.split('\t');
    const [mode, type, blob] = meta.split(' ');
    if (type === 'blob') entries.set(path, { mode, blob });
  }
  return entries;
}

/** The paths whose file on disk is not what the snapshot holds (changed, created or deleted since). */
async function changedSince(git: ShadowGit, snapshot: string, paths: string[]): Promise<Set<string>> {
  const expected = await treeEntries(git, snapshot, paths);
  // A file under a link is not in the project: never hashed through the link.
  const present = paths.filter((path) => !beyondLink(git.workTree, path) && isFile(join(git.workTree, path)));
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
