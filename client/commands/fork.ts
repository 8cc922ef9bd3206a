import type { ClientContext } from '../context.js';
import type { Fork } from '../../activities/snapshot/fork.js';
import { changeFiles } from './files-request.js';
import { messageIdFor } from '../services/turns.js';

/**
 * `loom fork <sessionId> [turn|messageId] [--dir PATH] [--json]`: a new session with the history
 * before that turn or message; with `--dir`, the files as they were then are written into PATH.
 */
export async function forkCommand(
  context: ClientContext,
  sessionId: string,
  messageId: string | undefined,
  options: { dir?: string; json?: boolean },
): Promise<number> {
  const before = messageId ? await messageIdFor(context.store, sessionId, messageId) : undefined;
  const fork = (await changeFiles(context, { action: 'fork', sessionId, messageId: before, dir: options.dir })) as Fork;
  if (options.json) {
    process.stdout.write(`${JSON.stringify(fork)}\n`);
    return 0;
  }
  const where = fork.files
    ? fork.files.kind === 'worktree'
      ? ` in ${fork.directory} (a git worktree on branch ${fork.files.branch})`
      : ` in ${fork.directory}`
    : '';
  context.report(`Forked ${sessionId} into ${fork.sessionId}${where}.`);
  context.report(`\`loom resume ${fork.sessionId} "…"\` goes on from there.`);
  process.stdout.write(`${fork.sessionId}\n`);
  return 0;
}
