import pc from 'picocolors';
import type { ClientContext } from '../context.js';
import { answerHint, describeRequest } from '../render/permission-request.js';

/** `loom pending`: every permission request waiting for a person, oldest first. */
export async function pendingCommand(context: ClientContext, options: { json?: boolean }): Promise<number> {
  const requests = await context.store.permissionRequests({ status: 'pending' });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(requests)}\n`);
    return 0;
  }
  if (requests.length === 0) {
    context.report('No permission requests are waiting.');
    return 0;
  }
  for (const request of requests) {
    const age = Math.round((Date.now() - request.time.created) / 1000);
    process.stdout.write(`${describeRequest(request)}\n  ${pc.dim(`waiting ${age} s · ${answerHint(request)}`)}\n\n`);
  }
  return 0;
}
