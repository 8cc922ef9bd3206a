import type { MessageWithParts } from '../../core/records/message.js';
import type { Session } from '../../core/records/session.js';
import type { MessageRecords } from '../store/messages.js';
import type { SessionRecords } from '../store/sessions.js';
import { FilesRequestError } from './request-error.js';
import { bySnapshots, fileChanges, indexOf, patchesFrom, type StepPatch } from './session-patches.js';
import { nulFields, type ShadowGit } from './shadow-git.js';
import { sessionShadow } from './step-activities.js';
import { unifiedDiff } from './changes.js';

/** One file a session changed, in OpenCode's shape (`before`/`after` are contents), with its unified diff. */
export interface FileDiff {
  file: string;
  status: 'added' | 'modified' | 'deleted';
  before: string;
  after: string;
  additions: number;
  deletions: number;
  diff: string;
}

/** Which steps' changes: all of the session's, one message's (a prompt's: its whole turn), or its `step`-th step. */
export interface DiffSelection {
  messageId?: string;
  step?: number;
}

/** What a session (and its subagents) did to the files, as the snapshots around its steps recorded it. */
export async function sessionDiff(
  store: MessageRecords & SessionRecords,
  dataDir: string,
  session: Session,
  selection: DiffSelection = {},
): Promise<FileDiff[]> {
  const messages = await store.messages(session.id);
  const patches = await selectedPatches(store, session, messages, selection);
  const git = sessionShadow(dataDir, session.directory, session.id);
  const diffs: FileDiff[] = [];
  for (const group of bySnapshots(fileChanges(patches))) {
    const counts = await lineCounts(git, group.before, group.after, group.paths);
    for (const path of group.paths) {
      const before = await contentAt(git, group.before, path);
      const after = await contentAt(git, group.after, path);
      if (before === after) continue;
      diffs.push({
        file: path,
        status: before === undefined ? 'added' : after === undefined ? 'deleted' : 'modified',
        before: before ?? '',
        after: after ?? '',
        additions: counts.get(path)?.additions ?? 0,
        deletions: counts.get(path)?.deletions ?? 0,
        diff: await unifiedDiff(git, group.before, group.after, [path]),
      });
    }
  }
  return diffs.sort((a, b) => (a.file < b.file ? -1 : 1));
}

async function selectedPatches(
  store: MessageRecords & SessionRecords,
  session: Session,
  messages: MessageWithParts[],
  { messageId, step }: DiffSelection,
): Promise<StepPatch[]> {
  if (step !== undefined) {
    const steps = messages.filter(({ info }) => info.role === 'assistant' && !info.summary);
    const chosen = steps[step - 1];
    if (!chosen)
      throw new FilesRequestError(`Session ${session.id} has ${steps.length} steps: there is no step ${step}.`);
    messageId = chosen.info.id;
  }
  if (messageId === undefined) return patchesFrom(store, session, messages);
  const index = indexOf(session.id, messages, messageId);
  // A prompt's changes are its whole turn's: every step until the next prompt.
  const next =
    messages[index].info.role === 'user'
      ? messages.slice(index + 1).find(({ info }) => info.role === 'user')
      : messages[index + 1];
  return patchesFrom(store, session, messages, { messageID: messageId }, next?.info.id);
}

/** A file's text in a snapshot; undefined where the snapshot has no such file. */
async function contentAt(git: ShadowGit, tree: string, path: string): Promise<string | undefined> {
  const listed = nulFields(await git.run(['ls-tree', '-z', '--full-tree', tree, '--', path]));
  if (listed.length === 0) return undefined;
  const blob = listed[0].split('\t')[0].split(' ')[2];
  return (await git.run(['cat-file', 'blob', blob])).toString('utf8');
}

async function lineCounts(
  git: ShadowGit,
  before: string,
  after: string,
  paths: string[],
): Promise<Map<string, { additions: number; deletions: number }>> {
  const counts = new Map<string, { additions: number; deletions: number }>();
  const output = await git.run(['diff', '--numstat', '-z', '--no-renames', before, after, '--', ...paths]);
  for (const line of nulFields(output)) {
    const [added, deleted, path] = line.split('\t');
    // Binary files count `-`.
    counts.set(path, { additions: Number(added) || 0, deletions: Number(deleted) || 0 });
  }
  return counts;
}
