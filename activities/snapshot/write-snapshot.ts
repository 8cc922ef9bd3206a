import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FilesRequestError } from './request-error.js';
import { safeGit } from './safe-git.js';
import { nulFields, ShadowGit } from './shadow-git.js';

/**
 * Writes the files of a snapshot of `source`'s project into `folder`, which must not exist (it is
 * made) or be empty. Where the project is a git repository, `folder` becomes a worktree of it on a new branch
 * (`branch`), so the files can be committed and merged back; elsewhere it is a plain folder.
 * Returns which it made.
 */
export async function writeSnapshotInto(
  source: ShadowGit,
  tree: string,
  folder: string,
  branch: string,
): Promise<'worktree' | 'folder'> {
  if (existsSync(folder) && readdirSync(folder).length > 0)
    throw new FilesRequestError(`${folder} is not empty: name a new folder for the fork's files.`);
  const kind = (await hasCommit(source.workTree)) ? 'worktree' : 'folder';
  // The project's git only registers the worktree and reads its commit's tree into the worktree's
  // index: it writes no file, so none of the project's filters has anything to do. Loom's own git
  // writes the files, from its snapshot.
  if (kind === 'worktree')
    await projectGit(source.workTree, ['worktree', 'add', '--quiet', '--no-checkout', '-b', branch, folder, 'HEAD']);
  // git runs in the folder: a plain folder is made here, as `git worktree add` makes a worktree's.
  else mkdirSync(folder, { recursive: true });
  const writer = new ShadowGit(source.gitDir, folder, `write-${branch.replace(/[^A-Za-z0-9_-]/g, '-')}`);
  try {
    await writer.run(['read-tree', tree]);
    await writer.run(['checkout-index', '--all', '--force']);
  } finally {
    rmSync(writer.indexFile, { force: true });
  }
  if (kind === 'worktree') await indexTheCommit(folder);
  return kind;
}

/**
 * The worktree's index holds its commit, as a checkout would leave it: `git status` there shows
 * what the snapshot changed since. Nested repositories the commit holds get their empty folder.
 */
async function indexTheCommit(folder: string): Promise<void> {
  await projectGit(folder, ['read-tree', 'HEAD']);
  for (const entry of nulFields(await projectGit(folder, ['ls-files', '--stage', '-z']))) {
    const [meta, path] = entry.split('\t');
    if (meta.startsWith('160000 ') && !existsSync(join(folder, path)))
      mkdirSync(join(folder, path), { recursive: true });
  }
}

async function hasCommit(root: string): Promise<boolean> {
  if (!existsSync(join(root, '.git'))) return false;
  return projectGit(root, ['rev-parse', '--verify', '--quiet', 'HEAD']).then(
    () => true,
    () => false,
  );
}

/** git in the project's own repository (or a worktree of it), none of its programs running. */
function projectGit(folder: string, args: string[]): Promise<Buffer> {
  return safeGit(args, { cwd: folder, where: `in ${folder}`, foreign: true });
}
