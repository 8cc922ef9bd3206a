import { CliError } from '../cli-error.js';
import type { CliContext } from '../context.js';
import { cancelSession } from '../services/sessions.js';
import { startWorkerIfNone } from './worker-presence.js';

/** How long `loom cancel` waits, with its own worker, for the run to close. */
const CANCEL_WAIT_MS = 60_000;

/**
 * `loom cancel <sessionId>`: cancels the session's open run and everything under it. With no
 * worker to carry the cancellation out, one runs here until the run has closed.
 */
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
  if (!(await startWorkerIfNone(context, `the cancellation of ${sessionId} needs one to take effect`))) {
    context.report(`Cancellation requested for ${sessionId}.`);
    return 0;
  }
  const closed = await Promise.race([
    client.workflow
      .getHandle(sessionId)
      .result()
      .then(
        () => true,
        () => true,
      ),
    new Promise<false>((resolve) => setTimeout(resolve, CANCEL_WAIT_MS, false).unref()),
  ]);
  context.report(
    closed
      ? `Cancelled ${sessionId}.`
      : `Cancellation requested for ${sessionId}; its run had not closed after ${CANCEL_WAIT_MS / 1000} s. \`loom show ${sessionId}\` shows where it is.`,
  );
  return 0;
}
