import { CliError } from '../cli-error.js';
import type { CliContext } from '../context.js';
import { cancelSession } from '../sessions.js';

/** `loom cancel <sessionId>`: cancels the session's open run and everything under it. */
export async function cancelCommand(context: CliContext, sessionId: string): Promise<number> {
  if (!(await context.store.getSession(sessionId))) {
    throw new CliError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`);
  }
  const { client } = await context.temporal();
  const result = await cancelSession(client, sessionId, context.store);
  if (result === 'not-running') {
    context.report(`Session ${sessionId} has no running run.`);
    return 0;
  }
  context.report(`Cancellation requested for ${sessionId}.`);
  return 0;
}
