import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';
import { plural } from '../render/quantities.js';
import { BusySessionError, removeSessionTree, UnknownSessionError } from '../services/remove-session.js';

/** `loom rm <sessionId>`: deletes a session with its subagents' sessions, its stored rows and snapshots. */
export async function rmCommand(
  context: ClientContext,
  sessionId: string,
  options: { json?: boolean },
): Promise<number> {
  if (!(await context.store.getSession(sessionId))) {
    throw new InputError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`);
  }
  const { client } = await context.temporal();
  let removed;
  try {
    removed = await removeSessionTree(client, context.store, sessionId, {
      dataDir: context.settings.dataDir,
      hostId: context.hostId,
    });
  } catch (error) {
    if (error instanceof UnknownSessionError) throw new InputError(`${error.message} \`loom ls\` lists sessions.`);
    if (error instanceof BusySessionError) throw new InputError(error.message);
    throw error;
  }
  for (const note of removed.notes) context.report(note);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ removed: removed.sessionIds })}\n`);
    return 0;
  }
  const below = removed.sessionIds.length - 1;
  process.stdout.write(`Removed ${sessionId}${below ? ` and ${plural(below, 'subagent session')} below it` : ''}.\n`);
  return 0;
}
