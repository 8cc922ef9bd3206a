import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FilesRestored } from '../../../activities/snapshot/session-revert.js';
import type { Fork } from '../../../activities/snapshot/fork.js';
import type { ClientContext } from '../../context.js';
import { InputError } from '../../input-error.js';
import { changeFiles } from '../../commands/files-request.js';
import { modelRetryFromEnv } from '../../services/model-choice.js';
import { exportSession } from '../../services/session-export.js';
import { plural } from '../../render/quantities.js';

/**
 * `/undo`, `/redo`, `/fork`, `/compact`, `/diff` and `/export` in the terminal UI: what `loom
 * revert`, `unrevert`, `fork`, `compact`, `diff` and `export` do, each answering with the line the
 * screen shows.
 */
export class SessionCommands {
  constructor(private readonly context: ClientContext) {}

  /** Puts back the files of the session's last turn and hides it from the model (`loom revert`). */
  async undo(sessionId: string): Promise<string> {
    const result = (await changeFiles(this.context, { action: 'revert', sessionId })) as FilesRestored;
    return `Undid the last turn: ${restored(result)}. /redo brings it back.${conflicts(result)}`;
  }

  /** Brings back what the last undo hid, files and messages (`loom unrevert`). */
  async redo(sessionId: string): Promise<string> {
    const result = (await changeFiles(this.context, { action: 'unrevert', sessionId })) as FilesRestored;
    return `Redid the turn: ${restored(result)}.${conflicts(result)}`;
  }

  /** A new session with this one's history (`loom fork`); its id. */
  async fork(sessionId: string): Promise<string> {
    const fork = (await changeFiles(this.context, { action: 'fork', sessionId })) as Fork;
    return fork.sessionId;
  }

  /** Starts a compaction run of an idle session (`loom compact`). */
  async compact(sessionId: string): Promise<string> {
    const { context } = this;
    const session = await context.store.getSession(sessionId);
    if (!session) throw new InputError(`Unknown session "${sessionId}".`);
    const { client } = await context.temporal();
    await context.ensureWorker();
    const { startCompaction } = await import('../../services/compaction.js');
    await startCompaction(client, session, {
      taskQueue: context.settings.taskQueue,
      hostId: context.hostId,
      modelRetry: modelRetryFromEnv(context.env),
    });
    return `Compacting ${sessionId}: its model will see a summary of the conversation so far.`;
  }

  /** The files the session and its subagents changed, as unified diffs (`loom diff`). */
  async diff(sessionId: string): Promise<{ text: string; summary: string }> {
    const { context } = this;
    const { readSessionDiff } = await import('../../services/session-files.js');
    const diffs = await readSessionDiff(context.store, context.settings.dataDir, context.hostId, sessionId);
    const added = diffs.reduce((sum, file) => sum + file.additions, 0);
    const removed = diffs.reduce((sum, file) => sum + file.deletions, 0);
    return {
      text: diffs.map((file) => file.diff).join('\n'),
      summary: diffs.length ? `${plural(diffs.length, 'file')} changed, +${added} −${removed}` : 'No files changed.',
    };
  }

  /** Writes the session, as `loom export` does, to `loom-<id>.json` in `directory`; the file. */
  async export(sessionId: string, directory: string): Promise<string> {
    const exported = await exportSession(this.context.store, sessionId);
    if (!exported) throw new InputError(`Unknown session "${sessionId}".`);
    const file = join(directory, `loom-${sessionId}.json`);
    try {
      writeFileSync(file, `${JSON.stringify(exported, null, 2)}\n`);
    } catch (error) {
      throw new InputError(`Cannot write ${file}: ${(error as Error).message}`);
    }
    return file;
  }
}

function restored(result: FilesRestored): string {
  return result.restored.length
    ? `${plural(result.restored.length, 'file')} restored (${result.restored.join(', ')})`
    : 'no files to restore';
}

function conflicts(result: FilesRestored): string {
  return result.conflicts.length
    ? ` Left alone, changed since by someone else: ${result.conflicts.join(', ')} (\`loom revert --force\` overwrites them).`
    : '';
}
