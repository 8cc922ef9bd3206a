import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import { beyondLink } from './beyond-link.js';
import { nulFields, type ShadowGit } from './shadow-git.js';
import { writeWhole } from './write-whole.js';

/** Files larger than this are left out of snapshots (OpenCode's limit): build outputs and data, not what agents edit. */
export const SNAPSHOT_FILE_LIMIT = 2 * 1024 * 1024;

/**
 * Takes a snapshot of the project's files: stages what changed since the index last looked (the
 * index keeps each file's size and time, so an unchanged project costs one pass of `stat`s) and
 * writes the tree. Returns the tree's hash, the snapshot's id. Honours `.gitignore` and the
 * project repository's `info/exclude`; skips files over the limit and nested repositories.
 */
export async function trackFiles(git: ShadowGit, limit = SNAPSHOT_FILE_LIMIT): Promise<string> {
  await git.ensure();
  seedIndex(git);
  copyProjectExcludes(git);
  const listed = nulFields(
    await git.run(['ls-files', '-z', '--others', '--modified', '--deleted', '--exclude-standard']),
  );
  const staged: string[] = [];
  const unstaged: string[] = [];
  const folders = new Map<string, boolean>();
  for (const path of new Set(listed)) {
    // A folder listed whole is a repository of its own inside the project: not ours to snapshot.
    if (path.endsWith('/')) continue;
    // Left out: a file over the limit; and, since git would refuse them, a file or link that a folder
    // replaced (its files are listed on their own) and one under a folder an agent replaced by a link
    // (no longer in the project).
    const found = lstatOf(join(git.workTree, path));
    if (beyondLink(git.workTree, path, folders) || found?.isDirectory() || (found && found.size > limit))
      unstaged.push(path);
    else staged.push(path);
  }
  // Out first, so a file or link that took a folder's place (or the other way round) finds its way free.
  if (unstaged.length > 0) await git.run(['update-index', '--force-remove', '-z', '--stdin'], unstaged.join('\0'));
  // Paths go to the index as they are, never matched as pathspecs (which costs a comparison per file per path).
  if (staged.length > 0)
    await git.run(['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], staged.join('\0'));
  // Nothing staged: the index, and so its tree, is what the last snapshot wrote.
  const last = lastSnapshot(git);
  if (staged.length === 0 && unstaged.length === 0 && last) return last.tree;
  const tree = (await git.run(['write-tree'])).toString().trim();
  await keepReachable(git, tree, last);
  return tree;
}

/** The owner's last snapshot and the commit that keeps it, when it took one with this index. */
function lastSnapshot(git: ShadowGit): { tree: string; commit: string } | undefined {
  if (!existsSync(git.headFile)) return undefined;
  const [tree, commit] = readFileSync(git.headFile, 'utf8').split(' ');
  return { tree, commit };
}

/**
 * Snapshots are trees; each is also committed on the owner's ref, so that collecting keeps every
 * snapshot of a session that exists and drops those of a deleted one. Unchanged trees add nothing.
 */
async function keepReachable(
  git: ShadowGit,
  tree: string,
  last: { tree: string; commit: string } | undefined,
): Promise<void> {
  if (last?.tree === tree) return;
  const parent = last ? ['-p', last.commit] : [];
  const commit = (await git.run(['commit-tree', tree, ...parent, '-m', git.owner])).toString().trim();
  // The ref written as git writes a loose ref, without another git process per snapshot.
  writeWhole(join(git.gitDir, git.ref), `${commit}\n`);
  writeWhole(git.headFile, `${tree} ${commit}`);
}

/** What is at `path` (not following a link), or undefined when it is gone (its deletion is staged). */
function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * A new index starts as a copy of the newest one of the same project: its sizes and times are as
 * good as its own would be, so a session's first snapshot does not read every file again.
 */
function seedIndex(git: ShadowGit): void {
  if (existsSync(git.indexFile)) return;
  const newest = git.sessionIndexes().sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (newest) copyFileSync(newest, git.indexFile);
}

/** The project repository's own exclusions (`.git/info/exclude`) apply to its snapshots too. */
function copyProjectExcludes(git: ShadowGit): void {
  const own = join(git.workTree, '.git', 'info', 'exclude');
  const exclude = existsSync(own) ? readFileSync(own) : Buffer.alloc(0);
  const shadow = join(git.gitDir, 'info', 'exclude');
  if (existsSync(shadow) && readFileSync(shadow).equals(exclude)) return;
  mkdirSync(join(git.gitDir, 'info'), { recursive: true });
  writeFileSync(shadow, exclude);
}
