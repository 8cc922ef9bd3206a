import { innermostCause } from '../text/error-message.js';
import type { Tokens } from '../records/tokens.js';

/**
 * How a batch task's session run ended, as the batch counts it: read from the child's result in
 * the run that started it, or by `awaitBatchTaskEnds` for a task an earlier run handed over.
 */
export type BatchTaskEnd =
  | { status: 'completed'; tokens: Tokens }
  | {
      status: 'failed';
      /** The innermost cause's message. */
      error: string;
      /** The run was cancelled (by the batch, a person, or a cancelled tree). */
      cancelled?: true;
      /** A budget stopped it (`BudgetExceeded`): no retry mends that. */
      budgetExceeded?: true;
    };

/** A failed run's end, from the failure Temporal reported (its cause chain). */
export function failedEnd(error: unknown, cancelled: boolean): BatchTaskEnd {
  return {
    status: 'failed',
    error: innermostMessage(error),
    ...(cancelled ? { cancelled: true as const } : {}),
    ...(hasFailureType(error, 'BudgetExceeded') ? { budgetExceeded: true as const } : {}),
  };
}

function innermostMessage(error: unknown): string {
  return (innermostCause(error) as { message?: string } | undefined)?.message ?? String(error);
}

/** Whether an application failure of that type is anywhere in the cause chain. */
function hasFailureType(error: unknown, type: string): boolean {
  for (
    let current = error as { type?: unknown; cause?: unknown } | undefined;
    current;
    current = current.cause as never
  )
    if (current.type === type) return true;
  return false;
}
