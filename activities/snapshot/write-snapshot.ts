import { execFile } from 'node:child_process';
import { existsSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FilesRequestError } from './request-error.js';
import { nulFields, ShadowGit } from './shadow-git.js';

const run = promisify(execFile);

/**
 * Writes the files of a snapshot of `source`'s project into `folder`, which must not exist or be
 * empty. Where the project is a git repository, `folder` becomes a worktree of it on a new branch
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
  if (kind === 'worktree') await gitIn(source.workTree, ['worktree', 'add', '--quiet', '-b', branch, folder, 'HEAD']);
  const writer = new ShadowGit(source.gitDir, folder, `write-${branch.replace(/[^A-Za-z0-9_-]/g, '-')}`);
  try {
    await writer.run(['read-tree', tree]);
    await writer.run(['checkout-index', '--all', '--force']);
    if (kind === 'worktree') await removeFilesNotIn(writer, folder);
  } finally {
    rmSync(writer.indexFile, { force: true });
  }
  return kind;
}

/** In a worktree, the committed files the snapshot does not hold (deleted since the commit) go. */
async function removeFilesNotIn(writer: ShadowGit, folder: string): Promise<void> {
  const kept = new Set(nulFields(await writer.run(['ls-files', '-z'])));
  const committed = nulFields(Buffer.from((await gitIn(folder, ['ls-files', '-z'])).stdout, 'utf8'));
  for (const path of committed) {
    if (kept.has(path)) continue;
    try {
      unlinkSync(join(folder, path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

async function hasCommit(root: string): Promise<boolean> {
  if (!existsSync(join(root, '.git'))) return false;
  return gitIn(root, ['rev-parse', '--verify', '--quiet', 'HEAD']).then(
    () => true,
    () => false,
  );
}

async function gitIn(folder: string, args: string[]): Promise<{ stdout: string }> {
  try {
    return await run('git', ['-C', folder, ...args], { maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`git ${args[0]} in ${folder}: ${stderr || (error as Error).message}`);
  }
}
