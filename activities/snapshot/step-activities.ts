import { homedir } from 'node:os';
import { parse } from 'node:path';
import type { ActivityDeps } from '../deps.js';
import { heartbeating } from '../process/heartbeating.js';
import { snapshotsDir } from '../process/paths.js';
import { warnOnceInWorkerLog } from '../process/worker-log.js';
import { errorMessage } from '../../core/text/error-message.js';
import { changedFiles } from './changes.js';
import { collectSnapshots } from './collect.js';
import { snapshotRoot } from './project-root.js';
import { ShadowGit } from './shadow-git.js';
import { trackFiles } from './track.js';

/** Where a session's snapshots of its directory are kept. */
export function sessionShadow(dataDir: string, directory: string, sessionId: string): ShadowGit {
  return ShadowGit.of(snapshotsDir(dataDir), snapshotRoot(directory), sessionId);
}

/**
 * The snapshots a step takes on the workspace's host: one before its tools run, one after, and
 * the step's `patch` part naming the files that differ. A snapshot that cannot be taken (no git on
 * the host, a folder it may not read) is skipped with a warning: it never fails the run.
 */
interface StepChangesInput {
  sessionId: string;
  messageId: string;
  partId: string;
  directory: string;
  /** The snapshot before the step. */
  from: string;
}

export function createSnapshotActivities({ store, dataDir }: Pick<ActivityDeps, 'store' | 'dataDir'>) {
  return {
    /** The project's files before a step's tools run: a tree id, or none when no snapshot could be taken. */
    snapshotBeforeStep: (input: { sessionId: string; directory: string }) => heartbeating(() => snapshotBefore(input)),
    recordStepChanges: (input: StepChangesInput) => heartbeating(() => recordChanges(input)),
  };

  async function snapshotBefore(input: { sessionId: string; directory: string }): Promise<{ tree?: string }> {
    const git = sessionShadow(dataDir, input.directory, input.sessionId);
    if (tooWide(git.workTree)) {
      snapshotFailed(git, new Error('a home folder or the root is not snapshotted (run Loom in a project folder)'));
      return {};
    }
    try {
      const tree = await trackFiles(git);
      await collectSnapshots(git);
      return { tree };
    } catch (error) {
      snapshotFailed(git, error);
      return {};
    }
  }

  /** The files after the step, and its `patch` part when any changed since `from`. */
  async function recordChanges(input: StepChangesInput): Promise<{ files: string[] }> {
    const git = sessionShadow(dataDir, input.directory, input.sessionId);
    let to: string;
    try {
      to = await trackFiles(git);
    } catch (error) {
      snapshotFailed(git, error);
      return { files: [] };
    }
    const files = (await changedFiles(git, input.from, to)).map((file) => file.path);
    if (files.length === 0) return { files };
    await store.savePart({
      id: input.partId,
      sessionID: input.sessionId,
      messageID: input.messageId,
      type: 'patch',
      hash: input.from,
      snapshot: to,
      files,
    });
    return { files };
  }
}

/** A session run in the home folder or at the root would snapshot everything under it. */
function tooWide(root: string): boolean {
  return root === homedir() || root === parse(root).root;
}

function snapshotFailed(git: ShadowGit, error: unknown): void {
  warnOnceInWorkerLog(`Steps of ${git.workTree} are not snapshotted (no undo for them): ${errorMessage(error)}`, {
    againAfterMs: 10 * 60_000,
  });
}
