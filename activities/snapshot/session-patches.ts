import type { MessageWithParts } from '../../core/records/message.js';
import type { Session } from '../../core/records/session.js';
import type { PatchPart } from '../../core/records/part.js';
import type { MessageRecords } from '../store/messages.js';
import { sessionSubtree } from '../store/session-subtree.js';
import type { SessionRecords } from '../store/sessions.js';
import { FilesRequestError } from './request-error.js';

/** A step's record of the files it changed, with when its message was written. */
export interface StepPatch {
  part: PatchPart;
  created: number;
}

/** How each file changed over a run of steps: from the first snapshot before it to the last after it. */
export interface FileChange {
  path: string;
  /** The snapshot holding the file as it was before (where it is missing, it did not exist). */
  before: string;
  /** The snapshot holding the file as the steps left it. */
  after: string;
}

/** Where a session's history is cut: at a message (and within it, after a part). */
export interface CutPoint {
  messageID: string;
  partID?: string;
}

/**
 * The steps that changed files in a session and every session under it (subagents edit the same
 * folder; a background one may go on after its parent's step), from `from` on (and before the
 * message `until`, when given), oldest first.
 */
export async function patchesFrom(
  store: MessageRecords & SessionRecords,
  session: Session,
  messages: MessageWithParts[],
  from?: CutPoint,
  until?: string,
): Promise<StepPatch[]> {
  const start = from ? indexOf(session.id, messages, from.messageID) : 0;
  const end = until ? indexOf(session.id, messages, until) : messages.length;
  const since = messages[start]?.info.time.created ?? Infinity;
  const till = messages[end]?.info.time.created ?? Infinity;
  const own = messages.slice(start, end).flatMap(({ info, parts }) => {
    const after = from?.partID && info.id === from.messageID ? parts.findIndex((part) => part.id === from.partID) : -1;
    return parts
      .slice(after + 1)
      .flatMap((part) => (part.type === 'patch' ? [{ part, created: info.time.created }] : []));
  });
  const below = await descendantPatches(store, session, since, till);
  return [...own, ...below].sort((a, b) => a.created - b.created || (a.part.id < b.part.id ? -1 : 1));
}

/** The index of a message of the session; a clear error names both when it has no such message. */
export function indexOf(sessionId: string, messages: MessageWithParts[], messageId: string): number {
  const index = messages.findIndex(({ info }) => info.id === messageId);
  if (index < 0) throw new FilesRequestError(`Session ${sessionId} has no message "${messageId}".`, 'unknown');
  return index;
}

/** The patches of the sessions under `session` written in [since, till). */
async function descendantPatches(
  store: MessageRecords & SessionRecords,
  session: Session,
  since: number,
  till: number,
): Promise<StepPatch[]> {
  const found: StepPatch[] = [];
  for (const member of await sessionSubtree(store, session)) {
    if (member.id === session.id) continue;
    for (const { info, parts } of await store.messages(member.id)) {
      if (info.time.created < since || info.time.created >= till) continue;
      for (const part of parts) if (part.type === 'patch') found.push({ part, created: info.time.created });
    }
  }
  return found;
}

/** Each file the steps changed, from the snapshot before the first step that changed it to the one after the last. */
export function fileChanges(patches: StepPatch[]): FileChange[] {
  const changes = new Map<string, FileChange>();
  for (const { part } of patches) {
    for (const path of part.files) {
      const known = changes.get(path);
      if (known) known.after = part.snapshot;
      else changes.set(path, { path, before: part.hash, after: part.snapshot });
    }
  }
  return [...changes.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Changes grouped by their pair of snapshots: git compares and restores a pair's files in one call. */
export function bySnapshots(changes: FileChange[]): { before: string; after: string; paths: string[] }[] {
  const groups = new Map<string, { before: string; after: string; paths: string[] }>();
  for (const change of changes) {
    const key = `${change.before} ${change.after}`;
    const group = groups.get(key) ?? { before: change.before, after: change.after, paths: [] };
    group.paths.push(change.path);
    groups.set(key, group);
  }
  return [...groups.values()];
}
