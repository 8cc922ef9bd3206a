import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure } from '@temporalio/common';
import type { MessageError } from '../../core/records/message.js';

/** How a run that did not complete ended: cancelled, or failed with a named error. */
export type RunFailure = { kind: 'cancelled' } | { kind: 'failed'; error: MessageError };

/** Reads the error a run's `result()` threw (the workflow's own failure is its cause). */
export function runFailure(error: unknown): RunFailure {
  const cause = error instanceof WorkflowFailedError ? error.cause : error;
  if (cause instanceof CancelledFailure) return { kind: 'cancelled' };
  if (cause instanceof TerminatedFailure)
    return { kind: 'failed', error: { name: 'Terminated', message: cause.message } };
  const name = cause instanceof ApplicationFailure ? (cause.type ?? 'Error') : ((cause as Error)?.name ?? 'Error');
  return { kind: 'failed', error: { name, message: (cause as Error)?.message ?? String(cause) } };
}
