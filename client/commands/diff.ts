import pc from 'picocolors';
import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';
import { plural } from '../render/quantities.js';
import { readSessionDiff } from '../services/session-files.js';
import { messageIdFor } from '../services/turns.js';

/**
 * `loom diff <sessionId> [--step N | --message TURN|ID] [--json]`: the files a session and its
 * subagents changed, as unified diffs, from the snapshots around its steps.
 */
export async function diffCommand(
  context: ClientContext,
  sessionId: string,
  options: { step?: string; message?: string; json?: boolean },
): Promise<number> {
  if (options.step !== undefined && options.message !== undefined)
    throw new InputError('Name a step or a message, not both.');
  const step = options.step === undefined ? undefined : Number(options.step);
  if (step !== undefined && !(Number.isInteger(step) && step >= 1))
    throw new InputError(
      `--step takes a step number from 1 (\`loom show ${sessionId}\` numbers them), not "${options.step}".`,
    );
  const diffs = await readSessionDiff(context.store, context.settings.dataDir, context.hostId, sessionId, {
    step,
    messageId:
      options.message === undefined ? undefined : await messageIdFor(context.store, sessionId, options.message),
  });
  if (options.json) {
    const files = diffs.map(({ file, status, additions, deletions, diff }) => ({
      file,
      status,
      additions,
      deletions,
      diff,
    }));
    process.stdout.write(`${JSON.stringify({ sessionId, files })}\n`);
    return 0;
  }
  if (diffs.length === 0) {
    context.report(`Session ${sessionId} changed no files${step || options.message ? ' there' : ''}.`);
    return 0;
  }
  const colour = process.stdout.isTTY ? colourLine : (line: string) => line;
  for (const { diff } of diffs) process.stdout.write(diff.split('\n').map(colour).join('\n'));
  const added = diffs.reduce((sum, file) => sum + file.additions, 0);
  const removed = diffs.reduce((sum, file) => sum + file.deletions, 0);
  context.report(`${plural(diffs.length, 'file')} changed, +${added} −${removed}`);
  return 0;
}

function colourLine(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff --git')) return pc.bold(line);
  if (line.startsWith('+')) return pc.green(line);
  if (line.startsWith('-')) return pc.red(line);
  if (line.startsWith('@@')) return pc.cyan(line);
  return line;
}
