import { CancellationScope, allHandlersFinished, condition, isCancellation, setHandler } from '@temporalio/workflow';
import type { BatchProgress, BatchStatus } from '../core/batch/batch.js';
import { store } from './activity-policies.js';
import { batchControlUpdate, batchProgressQuery } from './api.js';
import { applyControl, validateControl } from './batch/control.js';
import { followHandedOver, handOver, nearLimits, settled } from './batch/hand-over.js';
import { takeSnapshot } from './batch/isolation.js';
import { FLUSH_EVERY, cancelUnstarted, writeOutcomes } from './batch/outcomes.js';
import { progress, showProgress, showResult, statusChanged, writeStatus } from './batch/progress.js';
import { initialState, waiting, type BatchRunInput, type BatchState, type TaskScopes } from './batch/state.js';
import { cancelTasksById } from './batch/task.js';
import { canStart, fillWindow } from './batch/window.js';

export type { BatchRunInput } from './batch/state.js';
export type BatchResult = BatchProgress;

/**
 * Runs a batch's tasks as child session runs, at most `concurrency` at a time, retrying failed
 * tasks up to `retries` times. The task list stays in the store: this run only holds counters, the
 * tasks under way and outcomes not yet written. It continues as new when Temporal suggests it, so
 * a batch of any size stays within Temporal's limits, handing the running tasks to the next run:
 * they outlive the run that started them, and the next one waits for their ends.
 */
export async function batchWorkflow(input: BatchRunInput): Promise<BatchResult> {
  const state = initialState(input);
  const scopes: TaskScopes = new Map();
  setHandler(batchProgressQuery, () => progress(input, state));
  setHandler(batchControlUpdate, (control) => applyControl(input, state, scopes, control), {
    validator: (control) => validateControl(input, state, control),
  });
  if (input.isolate && !input.carried) await takeSnapshot(input);
  const watcher = followHandedOver(input, state);
  showProgress(input, state);
  // The loop writes the status whenever it differs from this: `running`, at the concurrency as it stands here.
  state.statusWritten = `running:${state.concurrency}`;
  try {
    for (;;) {
      await condition(() => due(input, state));
      if (state.cancelRequested) break;
      if (statusChanged(state)) await writeStatus(input, state);
      if (state.unwritten.length >= FLUSH_EVERY || state.running.size === 0) await writeOutcomes(input, state);
      if ((waiting(input, state) === 0 || state.budgetReached) && state.running.size === 0) break;
      state.draining ||= nearLimits(input);
      if (state.draining && settled(state)) await handOver(input, state, scopes, watcher);
      if (!state.draining && canStart(input, state)) await fillWindow(input, state, scopes);
    }
    if (state.cancelRequested || state.budgetReached) await cancelUnstarted(input, state);
  } catch (error) {
    if (isCancellation(error)) await CancellationScope.nonCancellable(() => cancelTasksById(state));
    throw error;
  }
  await writeOutcomes(input, state);
  const final: BatchStatus = state.cancelRequested || state.budgetReached ? 'cancelled' : 'completed';
  await store.setBatchStatus({ batchId: input.batchId, status: final, concurrency: state.concurrency });
  await condition(allHandlersFinished);
  return showResult(input, state, final);
}

/** Whether the loop has work: a cancel, a status to write, outcomes to write, a task to start, a run to end. */
function due(input: BatchRunInput, state: BatchState): boolean {
  return (
    state.cancelRequested ||
    statusChanged(state) ||
    state.unwritten.length >= FLUSH_EVERY ||
    (state.running.size === 0 &&
      (state.unwritten.length > 0 ||
        waiting(input, state) === 0 ||
        state.draining ||
        state.budgetReached !== undefined)) ||
    (state.draining && settled(state)) ||
    (!state.draining && canStart(input, state))
  );
}
