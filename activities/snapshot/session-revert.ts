import type { Session } from '../../core/records/session.js';
import type { MessageRecords } from '../store/messages.js';
import { sessionSubtree } from '../store/session-subtree.js';
import type { SessionRecords } from '../store/sessions.js';
import { FilesRequestError } from './request-error.js';
import { restoreConflicts, restoreFiles } from './restore.js';
import { bySnapshots, fileChanges, patchesFrom, type CutPoint } from './session-patches.js';
import { sessionShadow } from './step-activities.js';
import { trackFiles } from './track.js';

type Store = MessageRecords & SessionRecords;

/** What a revert or unrevert did: the files put back, and those left alone because a person changed them since. */
export interface FilesRestored {
  sessionId: string;
  messageID?: string;
  restored: string[];
  conflicts: string[];
}

/**
 * Reverts a session to `to` (default: its last prompt): the files that it and its subagents
 * changed from there on are put back as they were, and nothing else; its messages from there on
 * are hidden from the model until `unrevertSession` or the next prompt. The files as they were
 * before are kept for the unrevert (a revert further back keeps the first ones). Run again after
 * an interruption, it finishes what it started: each file is replaced whole, and the revert is
 * recorded before any file is touched.
 */
export async function revertSession(
  store: Store,
  dataDir: string,
  request: { sessionId: string; to?: CutPoint; force?: boolean },
): Promise<FilesRestored> {
  const session = await idleSession(store, request.sessionId, 'revert');
  const messages = await store.messages(session.id);
  const lastPrompt = messages.findLast(({ info }) => info.role === 'user');
  const to = request.to ?? (lastPrompt ? { messageID: lastPrompt.info.id } : undefined);
  if (!to) throw new FilesRequestError(`Session ${session.id} has no prompt to revert.`);
  const changes = fileChanges(await patchesFrom(store, session, messages, to));
  const git = sessionShadow(dataDir, session.directory, session.id);
  const before = session.revert?.snapshot ?? (await trackFiles(git));
  const paths = changes.map((change) => change.path);
  const files = [...new Set([...(session.revert?.files ?? []), ...paths])].sort();
  await store.saveSession({ ...session, revert: { ...to, snapshot: before, files } });
  const restored: string[] = [];
  const conflicts: string[] = [];
  for (const group of bySnapshots(changes)) {
    const result = await restoreFiles(git, group.before, group.paths, { expected: group.after, force: request.force });
    restored.push(...result.restored);
    conflicts.push(...result.conflicts);
  }
  const reverted = await trackFiles(git);
  const revert = { ...to, snapshot: before, reverted, files, ...(conflicts.length ? { conflicts } : {}) };
  await store.saveSession({ ...(await store.getSession(session.id))!, revert });
  return { sessionId: session.id, messageID: to.messageID, restored: restored.sort(), conflicts: conflicts.sort() };
}

/**
 * Undoes a revert: the files it restored go back to how they were before it, and the hidden
 * messages come back. When a person changed any of those files since, nothing is done (the
 * revert stays, so it can be undone with `force`, which overwrites them).
 */
export async function unrevertSession(
  store: Store,
  dataDir: string,
  request: { sessionId: string; force?: boolean },
): Promise<FilesRestored> {
  const session = await idleSession(store, request.sessionId, 'unrevert');
  const revert = session.revert;
  if (!revert) throw new FilesRequestError(`Session ${session.id} is not reverted: there is nothing to unrevert.`);
  const git = sessionShadow(dataDir, session.directory, session.id);
  const options = { expected: revert.reverted, force: request.force };
  const conflicts = [...(await restoreConflicts(git, revert.snapshot, revert.files, options))].sort();
  if (conflicts.length > 0)
    throw new FilesRequestError(
      `Not unreverted: ${conflicts.join(', ')} changed since the revert; unrevert with force to overwrite ${conflicts.length === 1 ? 'it' : 'them'}.`,
    );
  const result = await restoreFiles(git, revert.snapshot, revert.files, options);
  const { revert: _, ...rest } = (await store.getSession(session.id))!;
  await store.saveSession(rest);
  return { sessionId: session.id, messageID: revert.messageID, ...result };
}

/** The session, when neither it nor any session under it is running. */
async function idleSession(store: Store, sessionId: string, verb: string): Promise<Session> {
  const session = await store.getSession(sessionId);
  if (!session) throw new FilesRequestError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`, 'unknown');
  const busy = (await sessionSubtree(store, session)).find((member) => member.status === 'busy')?.id;
  if (busy)
    throw new FilesRequestError(
      busy === session.id
        ? `Session ${session.id} is busy: ${verb} it once its run has finished (or \`loom cancel ${session.id}\`).`
        : `Session ${session.id} has a subagent still running (${busy}): ${verb} it once that has finished.`,
      'busy',
    );
  return session;
}
