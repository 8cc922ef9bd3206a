import { CliError } from '../cli-error.js';
import type { CliContext } from '../context.js';
import { replyToRequest } from '../permissions.js';

export interface ApproveOptions {
  always?: boolean;
  reject?: boolean;
  message?: string;
}

/** `loom approve <requestId>`: allow once (default), always, or reject (with feedback for the model). */
export async function approveCommand(context: CliContext, requestId: string, options: ApproveOptions): Promise<number> {
  if (options.always && options.reject) throw new CliError('Choose one of --always and --reject.', 2);
  if (options.message !== undefined && !options.reject) throw new CliError('--message goes with --reject: it is the feedback the agent sees.', 2);
  const reply = options.reject ? 'reject' : options.always ? 'always' : 'once';
  const { client } = await context.temporal();
  const request = await replyToRequest(client, context.store, { requestId, reply, message: options.message });
  const verb = reply === 'reject' ? 'Rejected' : reply === 'always' ? `Allowed always (${request.permission} ${request.always.join(', ')})` : 'Allowed once';
  context.report(`${verb}: ${request.title} in session ${request.sessionID}.`);
  return 0;
}
