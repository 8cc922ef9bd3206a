import { isGrpcDeadlineError, isGrpcServiceError, isRetryableError } from '@temporalio/client';
import type { TemporalTarget } from '../../worker/connection/target.js';
import { errorMessage } from '../../core/text/error-message.js';

/**
 * Whether an error says the Temporal server could not be reached (connection refused or dropped,
 * a call that timed out, a server shutting down) rather than giving an answer: a run's failure,
 * an unknown workflow or a rejected request are answers, and mean the same when asked again.
 */
export function isTransportError(error: unknown): boolean {
  if (isGrpcDeadlineError(error)) return true;
  for (let cause: unknown = error; cause instanceof Error; cause = (cause as { cause?: unknown }).cause) {
    if (isGrpcServiceError(cause)) return isRetryableError(cause);
  }
  return false;
}

/** The gRPC details of a transport error, which say what went wrong on the wire. */
export function transportReason(error: unknown): string {
  for (let cause: unknown = error; cause instanceof Error; cause = (cause as { cause?: unknown }).cause) {
    if (isGrpcServiceError(cause)) return cause.details.split('. ')[0] || cause.message;
  }
  return errorMessage(error);
}

/**
 * One line for a Temporal server that does not answer at all, and how to get one: the dev server
 * is started by Loom's commands (`loom worker` among them) when nothing names a server.
 */
export function serverUnreachableMessage(target: Pick<TemporalTarget, 'address' | 'embedded' | 'sources'>): string {
  return target.embedded
    ? `Cannot reach the Temporal server at ${target.address}: it is not running (stopped by \`loom down\`?). Any \`loom run\` starts it again, as does starting \`loom worker\` again.`
    : `Cannot reach the Temporal server at ${target.address} (${target.sources.address}): nothing answers there. Start it, or set TEMPORAL_ADDRESS to a server that runs.`;
}
