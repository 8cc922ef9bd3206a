import { existsSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ShadowGit } from './shadow-git.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Snapshots no session holds any more, and sessions' indexes not used for this long, are deleted. */
export const SNAPSHOT_KEEP_DAYS = 7;

/**
 * Deletes what a shadow repository no longer needs, at most once a day: the objects of deleted
 * sessions' snapshots (git's own prune, once they are a week old) and the indexes of sessions idle
 * as long (a session that comes back starts from another's). A session's snapshots stay while it exists.
 */
export async function collectSnapshots(git: ShadowGit, now = Date.now()): Promise<boolean> {
  const stamp = join(git.gitDir, 'loom-collected');
  if (!existsSync(git.gitDir) || (existsSync(stamp) && now - statSync(stamp).mtimeMs < DAY_MS)) return false;
  writeFileSync(stamp, '');
  utimesSync(stamp, now / 1000, now / 1000);
  for (const path of git.sessionIndexes()) {
    if (now - statSync(path).mtimeMs > SNAPSHOT_KEEP_DAYS * DAY_MS) rmSync(path, { force: true });
  }
  await git.run(['gc', '--quiet', `--prune=${SNAPSHOT_KEEP_DAYS}.days.ago`]);
  return true;
}

/** Lets a deleted session's snapshots go: its ref, index and chain; `collectSnapshots` deletes the objects. */
export async function forgetSnapshots(git: ShadowGit): Promise<void> {
  if (!existsSync(git.gitDir)) return;
  await git.run(['update-ref', '-d', git.ref]);
  rmSync(git.indexFile, { force: true });
  rmSync(git.headFile, { force: true });
}
