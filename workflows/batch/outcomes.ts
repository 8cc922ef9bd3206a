import { condition } from '@temporalio/workflow';
import type { BatchTaskOutcome } from '../../core/batch/batch.js';
import type { BatchTaskEnd } from '../../core/batch/batch-task-end.js';
import { addTokens } from '../../core/records/tokens.js';
import { store } from '../activity-policies.js';
import { waiting, type BatchRunInput, type BatchState } from './state.js';

/** Outcomes are written to the store in groups, so history grows by one activity per group. */
export const FLUSH_EVERY = 25;

/** Counts a task's end and queues its outcome for the store; a failed one may be tried again. */
export function taskEnded(
  input: BatchRunInput,
  state: BatchState,
  task: { index: number; sessionId: string; attempt: number },
  end: BatchTaskEnd,
  changes?: BatchTaskOutcome['changes'],
): void {
  const outcome = { index: task.index, sessionId: task.sessionId, attempts: task.attempt };
  if (end.status === 'completed') {
    state.done++;
    state.tokens = addTokens(state.tokens, end.tokens);
    state.unwritten.push({ ...outcome, status: 'completed', tokens: end.tokens, ...(changes ? { changes } : {}) });
    return;
  }
  // A spent budget is not a failure a retry mends; the batch's own one stops it starting tasks.
  const overBudget = end.budgetExceeded === true;
  if (overBudget && end.error.includes(`batch ${input.batchId}`)) state.budgetReached = end.error;
  if (state.cancelRequested && end.cancelled) {
    state.cancelled++;
    state.unwritten.push({ ...outcome, status: 'cancelled', error: end.error });
  } else if (task.attempt <= input.retries && !state.cancelRequested && !overBudget) {
    state.retryQueue.push({ index: task.index, attempt: task.attempt + 1 });
    state.unwritten.push({ ...outcome, status: 'pending', error: end.error });
  } else {
    state.failed++;
    state.unwritten.push({ ...outcome, status: 'failed', error: end.error });
  }
}

/** Writes the outcomes that came in since the last write. */
export async function writeOutcomes(input: BatchRunInput, state: BatchState): Promise<void> {
  if (state.unwritten.length === 0) return;
  const outcomes = state.unwritten.splice(0);
  await store.recordBatchOutcomes({ batchId: input.batchId, outcomes });
}

/** A cancelled batch, or one whose budget is spent: once its tasks under way end, the tasks not started end cancelled. */
export async function cancelUnstarted(input: BatchRunInput, state: BatchState): Promise<void> {
  await condition(() => state.running.size === 0);
  const unstarted = state.retryQueue.map((task) => task.index);
  state.cancelled += waiting(input, state);
  await store.cancelBatchTasks({
    batchId: input.batchId,
    indexes: unstarted,
    from: state.nextIndex,
    total: input.total,
  });
  state.retryQueue = [];
  state.nextIndex = input.total;
}
