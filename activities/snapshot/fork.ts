import { relative, resolve, join } from 'node:path';
import { newId } from '../../core/records/ids.js';
import { copyTranscript } from '../../core/records/transcript-copy.js';
import type { MessageRecords } from '../store/messages.js';
import type { PartRecords } from '../store/parts.js';
import type { SessionRecords } from '../store/sessions.js';
import { snapshotRoot } from './project-root.js';
import { FilesRequestError } from './request-error.js';
import { indexOf, patchesFrom } from './session-patches.js';
import { sessionShadow } from './step-activities.js';
import { trackFiles } from './track.js';
import { writeSnapshotInto } from './write-snapshot.js';

/** What a fork made: the new session, and where it works. */
export interface Fork {
  sessionId: string;
  directory: string;
  /** With a folder of its own: a git worktree of the project (on `branch`), or a plain folder. */
  files?: { kind: 'worktree' | 'folder'; branch?: string };
}

/**
 * A new session whose history is the session's messages before `messageId` (all of them when
 * none, or before its revert point), under new ids, recording where it came from. With `dir`, the project's files as they
 * were at that point are written there and the fork works there; without, it shares the folder.
 */
export async function forkSession(
  store: SessionRecords & MessageRecords & PartRecords,
  dataDir: string,
  request: { sessionId: string; messageId?: string; dir?: string; now?: number },
): Promise<Fork> {
  const now = request.now ?? Date.now();
  const session = await store.getSession(request.sessionId);
  if (!session)
    throw new FilesRequestError(`Unknown session "${request.sessionId}". \`loom ls\` lists sessions.`, 'unknown');
  const messages = await store.messages(session.id);
  // A reverted session's hidden messages are not its history.
  const until = request.messageId ?? session.revert?.messageID;
  const cut = until ? indexOf(session.id, messages, until) : messages.length;
  const id = newId('ses', now, Math.random);
  let directory = session.directory;
  let files: Fork['files'];
  if (request.dir) {
    const git = sessionShadow(dataDir, session.directory, session.id);
    const from = request.messageId ? { messageID: request.messageId } : undefined;
    // The files at that point: as the first step after it found them, or as they are now.
    const later = request.messageId ? await patchesFrom(store, session, messages, from) : [];
    const tree = later[0]?.part.hash ?? (await trackFiles(git));
    const folder = resolve(request.dir);
    const branch = `loom/fork-${id.slice(-10)}`;
    const kind = await writeSnapshotInto(git, tree, folder, branch);
    files = { kind, ...(kind === 'worktree' ? { branch } : {}) };
    directory = join(folder, relative(snapshotRoot(session.directory), session.directory));
  }
  const { revert: _, error: __, ...kept } = session;
  await store.saveSession({
    ...kept,
    id,
    parentID: undefined,
    parentPartID: undefined,
    title: `${session.title} (fork)`,
    directory,
    status: 'idle',
    forkedFrom: { sessionID: session.id, ...(request.messageId ? { messageID: request.messageId } : {}) },
    time: { created: now, updated: now },
  });
  for (const { info, parts } of copyTranscript(messages.slice(0, cut), id, { now, keepPatches: !request.dir })) {
    await store.saveMessage(info);
    for (const part of parts) await store.savePart(part);
  }
  return { sessionId: id, directory, ...(files ? { files } : {}) };
}
