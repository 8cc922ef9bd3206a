import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';
import { replyToRequest } from '../services/permissions.js';
import { currentCursor } from '../follow/session-changes.js';
import { watchRun } from '../follow/watch-run.js';
import { printOutcome } from './outcome.js';
import { startWorkerIfNone } from './worker-presence.js';

export interface ApproveOptions {
  always?: boolean;
  reject?: boolean;
  message?: string;
}

/**
 * `loom approve <requestId>`: allow once (default), always, or reject (with feedback for the
 * model). When no worker runs the session (the `loom run` that asked has exited), one runs here
 * and the session's tree is followed to its end: a reply with nobody to act on it would wait silently.
 */
export async function approveCommand(
  context: ClientContext,
  requestId: string,
  options: ApproveOptions,
): Promise<number> {
  if (options.always && options.reject) throw new InputError('Choose one of --always and --reject.', 2);
  if (options.message !== undefined && !options.reject)
    throw new InputError('--message goes with --reject: it is the feedback the agent sees.', 2);
  const reply = options.reject ? 'reject' : options.always ? 'always' : 'once';
  const { client } = await context.temporal();
  const pending = await context.store.getPermissionRequest(requestId);
  const rootId = pending?.rootID ?? pending?.sessionID;
  const workerHere =
    pending?.status === 'pending' &&
    (await startWorkerIfNone(context, `the run of session ${pending.sessionID} waits for this reply`));
  const cursor = workerHere && rootId ? await currentCursor(context.store, rootId) : 0;
  const request = await replyToRequest(client, context.store, { requestId, reply, message: options.message });
  const verb =
    reply === 'reject'
      ? 'Rejected'
      : reply === 'always'
        ? `Allowed always (${request.permission} ${request.always.join(', ')})`
        : 'Allowed once';
  context.report(`${verb}: ${request.title} in session ${request.sessionID}.`);
  if (!workerHere || !rootId) return 0;
  const outcome = await watchRun(context, client.workflow.getHandle(rootId), rootId, cursor, { quiet: false, rootId });
  return printOutcome(context, outcome, false);
}
