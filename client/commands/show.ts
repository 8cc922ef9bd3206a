import { CliError } from '../cli-error.js';
import type { CliContext } from '../context.js';
import { renderSession } from '../render/session-view.js';

/** `loom show <sessionId>`: every message and part of a session, from the store. */
export async function showCommand(context: CliContext, sessionId: string, options: { json?: boolean; full?: boolean }): Promise<number> {
  const session = await context.store.getSession(sessionId);
  if (!session) throw new CliError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`);
  const messages = await context.store.messages(sessionId);
  const children = await context.store.children(sessionId);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ session, messages, children: children.map((child) => child.id) })}\n`);
  } else {
    process.stdout.write(`${renderSession(session, messages, options)}\n`);
  }
  return 0;
}
