import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { rmSync } from 'node:fs';
import { refusedConfigDir } from '../../activities/process/paths.js';
import { removeSessionTmpFolder } from '../../activities/sandbox/tmp-folders.js';
import { forgetSnapshots } from '../../activities/snapshot/collect.js';
import { sessionShadow } from '../../activities/snapshot/step-activities.js';
import { sessionSubtree } from '../../activities/store/session-subtree.js';
import type { SessionRecords } from '../../activities/store/sessions.js';
import { errorMessage } from '../../core/text/error-message.js';
import type { Session } from '../../core/records/session.js';

/** `loom rm` and `DELETE /session/:id` were given an id the store does not hold. */
export class UnknownSessionError extends Error {
  override name = 'UnknownSessionError';
}

/** A session of the tree to delete is working: nothing was deleted. */
export class BusySessionError extends Error {
  override name = 'BusySessionError';
}

export interface RemoveOptions {
  /** Loom's data folder: snapshots are under `<dataDir>/snapshots`. */
  dataDir: string;
  /** This machine's host id: only sessions whose workspace is here have their snapshots here. */
  hostId: string;
}

export interface Removed {
  /** The sessions deleted, children before their parents, the one asked for last. */
  sessionIds: string[];
  /** What could not be let go (snapshots on another host, a shadow repository git refused). */
  notes: string[];
}

/**
 * Deletes a session and its whole subtree, children first, with each one's store rows and
 * snapshots. Refuses, deleting nothing, when any session of the tree is busy in the store or has a
 * run still open in Temporal: a run writes to its session until it ends.
 */
export async function removeSessionTree(
  client: Client,
  store: SessionRecords,
  sessionId: string,
  options: RemoveOptions,
): Promise<Removed> {
  const session = await store.getSession(sessionId);
  if (!session) throw new UnknownSessionError(`Unknown session "${sessionId}".`);
  const tree = await sessionSubtree(store, session);
  for (const member of tree) {
    if (member.status === 'busy' || (await hasOpenRun(client, member.id))) {
      const which =
        member.id === sessionId ? `Session ${sessionId} is busy` : `Session ${member.id}, below ${sessionId}, is busy`;
      throw new BusySessionError(
        `${which}: cannot remove ${sessionId}. Cancel it first (\`loom cancel ${sessionId}\`) or wait for it to finish.`,
      );
    }
  }
  const notes: string[] = [];
  for (const member of tree) {
    notes.push(...(await letSnapshotsGo(member, options)));
    await store.removeSession(member.id);
  }
  return { sessionIds: tree.map((member) => member.id), notes };
}

async function hasOpenRun(client: Client, sessionId: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(sessionId).describe()).status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** Drops the session's ref and index from its project's shadow repository; git collects the objects later. */
async function letSnapshotsGo(session: Session, options: RemoveOptions): Promise<string[]> {
  if (session.host && session.host !== options.hostId) {
    return [`The snapshots of ${session.id} are on host ${session.host}; they stay there.`];
  }
  try {
    await forgetSnapshots(sessionShadow(options.dataDir, session.directory, session.id));
    // The config files its commands created, which the sandbox moved out of the project.
    rmSync(refusedConfigDir(options.dataDir, session.id), { recursive: true, force: true });
    await removeSessionTmpFolder(session.id);
    return [];
  } catch (error) {
    return [`The snapshots of ${session.id} could not be let go: ${errorMessage(error)}`];
  }
}
