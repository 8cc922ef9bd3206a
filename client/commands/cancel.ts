import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';
import { cancelSession } from '../services/sessions.js';
import { startedSession } from '../services/started-session.js';
import { terminateSession } from '../services/terminate-session.js';
import { startWorkerIfNone } from './worker-presence.js';

/** How long `loom cancel` waits, with its own worker, for the run to close. */
const CANCEL_WAIT_MS = 60_000;

/**
 * `loom cancel <sessionId>`: cancels the session's open run and everything under it. With no
 * worker to carry the cancellation out, one runs here until the run has closed. `--terminate`
 * ends the runs at once instead, for runs no worker here can take.
 */
export async function cancelCommand(
  context: ClientContext,
  sessionId: string,
  options: { terminate?: boolean } = {},
): Promise<number> {
  const { client } = await context.temporal();
  // A session started a moment ago (by `loom serve`, with no worker yet) is known only by its run.
  if (
    !(await context.store.getSession(sessionId)) &&
    !(await startedSession(client, sessionId).catch(() => undefined))
  ) {
    throw new InputError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`);
  }
  if (options.terminate) {
    const ended = await terminateSession(client, context.store, sessionId);
    context.report(
      ended.length === 0
        ? `Session ${sessionId} has no running run.`
        : `Ended ${ended.join(', ')} without a worker; tools they had running were not stopped.`,
    );
    return 0;
  }
  const result = await cancelSession(client, sessionId, context.store);
  if (result === 'not-running') {
    context.report(`Session ${sessionId} has no running run.`);
    return 0;
  }
  if (result === 'ended') {
    context.report(`Cancelled ${sessionId}: no worker had started it.`);
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
