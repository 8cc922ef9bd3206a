import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { changedFiles, type ChangedFile } from './changes.js';
import { safeGit } from './safe-git.js';
import { ShadowGit } from './shadow-git.js';
import { trackFiles } from './track.js';

/**
 * An isolated batch's folder on its host (`<data>/isolated/<batch>`): `snapshots.git`, a shadow
 * repository of its own holding the project's snapshot and every copy's, and `tasks/<index>`, the
 * copies. Deleting the folder deletes all of it; nothing of it lives in the project's shadow.
 */
export function isolationFolder(dataDir: string, batchId: string): string {
  return join(dataDir, 'isolated', batchId);
}

export function copyFolder(folder: string, index: number): string {
  return join(folder, 'tasks', String(index));
}

/** The batch's shadow repository, over `workTree` (the project, or a copy), with `owner`'s index. */
export function batchSnapshots(folder: string, workTree: string, owner: string): ShadowGit {
  return new ShadowGit(join(folder, 'snapshots.git'), workTree, owner);
}

/** The snapshot every copy starts from: the project's files as they are now, committed or not. */
export async function snapshotProject(folder: string, root: string): Promise<string> {
  return trackFiles(batchSnapshots(folder, root, 'base'));
}

/**
 * Writes the snapshot `base` into a new copy for task `index` (a copy made before, by an earlier
 * attempt, is replaced). The copy is a git repository of its own whose one commit is the snapshot,
 * its objects borrowed from the batch's repository: `git diff` in the copy shows what the task
 * changed, and git run there never reaches a repository around the data folder.
 */
export async function materialiseCopy(folder: string, base: string, index: number, root: string): Promise<string> {
  const copy = copyFolder(folder, index);
  const snapshots = batchSnapshots(folder, copy, `task-${index}`);
  rmSync(copy, { recursive: true, force: true });
  rmSync(snapshots.indexFile, { force: true });
  rmSync(snapshots.headFile, { force: true });
  mkdirSync(copy, { recursive: true });
  await git(copy, ['init', '--quiet', '--template=']);
  mkdirSync(join(copy, '.git', 'objects', 'info'), { recursive: true });
  writeFileSync(join(copy, '.git', 'objects', 'info', 'alternates'), `${join(snapshots.gitDir, 'objects')}\n`);
  const commit = (await git(copy, ['commit-tree', base, '-m', 'The project when the batch started'])).trim();
  await git(copy, ['symbolic-ref', 'HEAD', 'refs/heads/loom-batch']);
  await git(copy, ['update-ref', 'HEAD', commit]);
  await git(copy, ['read-tree', 'HEAD']);
  await git(copy, ['checkout-index', '--all', '--index']);
  // The project's own exclusions hold in the copy, and so in the copy's snapshots.
  const exclude = join(root, '.git', 'info', 'exclude');
  mkdirSync(join(copy, '.git', 'info'), { recursive: true });
  writeFileSync(join(copy, '.git', 'info', 'exclude'), existsSync(exclude) ? readFileSync(exclude) : '');
  // The copy's index knows every file's size and time just written: its first snapshot reads none again.
  copyFileSync(join(copy, '.git', 'index'), snapshots.indexFile);
  return copy;
}

/** The copy's files now, as a snapshot, and the files that differ from `base`. */
export async function snapshotCopy(
  folder: string,
  base: string,
  index: number,
): Promise<{ tree: string; files: ChangedFile[] }> {
  const snapshots = batchSnapshots(folder, copyFolder(folder, index), `task-${index}`);
  const tree = await trackFiles(snapshots);
  return { tree, files: await changedFiles(snapshots, base, tree) };
}

/** Runs git in a copy, a repository Loom made (`safeGit`: no hooks, filters or line-ending conversion). */
export async function git(cwd: string, args: string[]): Promise<string> {
  return (await safeGit(args, { cwd, where: `in ${cwd}` })).toString('utf8');
}
