import type { FilesRestored } from '../../activities/snapshot/session-revert.js';
import type { ClientContext } from '../context.js';
import { plural } from '../render/quantities.js';
import { changeFiles } from './files-request.js';
import { messageIdFor } from '../services/turns.js';

/**
 * `loom revert <sessionId> [turn|messageId] [--force] [--json]`: puts back the files the session and
 * its subagents changed from that turn or message on (default: its last prompt) and hides those messages
 * from the model. Exits 1 when files a person changed since were left alone.
 */
export async function revertCommand(
  context: ClientContext,
  sessionId: string,
  messageId: string | undefined,
  options: { force?: boolean; json?: boolean },
): Promise<number> {
  const to = messageId ? await messageIdFor(context.store, sessionId, messageId) : undefined;
  const result = (await changeFiles(context, {
    action: 'revert',
    sessionId,
    ...(to ? { to: { messageID: to } } : {}),
    force: options.force,
  })) as FilesRestored;
  return report(context, result, 'reverted', options.json, [
    `The messages from ${result.messageID} on are hidden from the model; \`loom unrevert ${sessionId}\` brings them and the files back, until the next prompt drops them.`,
  ]);
}

/** `loom unrevert <sessionId> [--force] [--json]`: undoes the last revert, files and messages. */
export async function unrevertCommand(
  context: ClientContext,
  sessionId: string,
  options: { force?: boolean; json?: boolean },
): Promise<number> {
  const result = (await changeFiles(context, { action: 'unrevert', sessionId, force: options.force })) as FilesRestored;
  return report(context, result, 'unreverted', options.json, []);
}

function report(
  context: ClientContext,
  result: FilesRestored,
  done: string,
  json: boolean | undefined,
  notes: string[],
): number {
  const code = result.conflicts.length > 0 ? 1 : 0;
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return code;
  }
  const files = result.restored.length ? `: ${result.restored.join(', ')}` : ' (it had changed no files)';
  context.report(`${result.sessionId} ${done}, ${plural(result.restored.length, 'file')} restored${files}.`);
  if (result.conflicts.length > 0)
    context.report(
      `Left alone, changed since by someone else: ${result.conflicts.join(', ')}. Run it again with --force to overwrite them.`,
    );
  for (const note of notes) context.report(note);
  return code;
}
