import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { PermissionRecords } from '../../activities/store/permissions.js';
import type { PermissionReply, PermissionRequestRecord } from '../../core/rules/permission-request.js';
import { permissionReplyUpdate } from '../../workflows/api.js';
import { InputError } from '../input-error.js';

/** Why a reply was refused, so a caller can answer each case its own way (the server: 404 or 409). */
export type ReplyRefusal = 'unknown' | 'answered' | 'not-running';

/** A reply that could not be given; for a person it reads as any `InputError` does. */
export class PermissionReplyError extends InputError {
  override name = 'PermissionReplyError';
  constructor(
    readonly kind: ReplyRefusal,
    message: string,
  ) {
    super(message);
  }
}

/** Answers a permission request: the reply goes to the run that asked, as a Temporal update. */
export async function replyToRequest(
  client: Client,
  store: PermissionRecords,
  reply: PermissionReply,
): Promise<PermissionRequestRecord> {
  const request = await store.getPermissionRequest(reply.requestId);
  if (!request)
    throw new PermissionReplyError(
      'unknown',
      `Unknown permission request "${reply.requestId}". \`loom pending\` lists those waiting.`,
    );
  if (request.status !== 'pending') {
    const how = request.reply ? ` (${request.reply.reply})` : '';
    throw new PermissionReplyError(
      'answered',
      `Permission request ${request.id} is no longer waiting: it was ${request.status}${how}.`,
    );
  }
  try {
    await client.workflow
      .getHandle(request.sessionID)
      .executeUpdate(permissionReplyUpdate, { args: [reply], updateId: `${reply.requestId}-reply` });
  } catch (error) {
    // The run's validator refused: it has no such request waiting (answered already, or not its own).
    if (error instanceof WorkflowUpdateFailedError)
      throw new PermissionReplyError('answered', error.cause?.message ?? error.message);
    if (error instanceof WorkflowNotFoundError)
      throw new PermissionReplyError(
        'not-running',
        `The run of session ${request.sessionID} that asked is no longer running.`,
      );
    throw error;
  }
  return request;
}
