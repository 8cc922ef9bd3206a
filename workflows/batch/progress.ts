import { setCurrentDetails } from '@temporalio/workflow';
import type { BatchProgress, BatchStatus } from '../../core/batch/batch.js';
import { store } from '../activity-policies.js';
import type { BatchRunInput, BatchState } from './state.js';

export function status(state: BatchState): BatchStatus {
  return state.cancelRequested ? 'cancelled' : state.paused ? 'paused' : 'running';
}

export function progress(input: BatchRunInput, state: BatchState, final?: BatchStatus): BatchProgress {
  return {
    batchId: input.batchId,
    status: final ?? status(state),
    total: input.total,
    done: state.done,
    failed: state.failed,
    cancelled: state.cancelled,
    running: state.running.size,
    pending: input.total - state.done - state.failed - state.cancelled - state.running.size,
    concurrency: state.concurrency,
    tokens: state.tokens,
    started: state.started,
  };
}

/** The run's current details in the Temporal UI. */
export function showProgress(input: BatchRunInput, state: BatchState): void {
  const p = progress(input, state);
  setCurrentDetails(
    `**${p.status}** · ${p.done} done · ${p.failed} failed · ${p.running} running · ${p.pending} waiting of ${p.total} (concurrency ${p.concurrency})`,
  );
}

/** The ended batch's result, shown as the run's last details (with why it stopped, if its budget did). */
export function showResult(input: BatchRunInput, state: BatchState, final: BatchStatus): BatchProgress {
  const result = progress(input, state, final);
  setCurrentDetails(
    `**${final}** · ${result.done} done · ${result.failed} failed · ${result.cancelled} cancelled of ${result.total}` +
      (state.budgetReached ? `\n\n${state.budgetReached}` : ''),
  );
  return result;
}

const statusKey = (state: BatchState) => `${status(state)}:${state.concurrency}`;

/** Controls change the status or the concurrency in the state; the loop writes them to the store. */
export function statusChanged(state: BatchState): boolean {
  return statusKey(state) !== state.statusWritten;
}

export async function writeStatus(input: BatchRunInput, state: BatchState): Promise<void> {
  state.statusWritten = statusKey(state);
  await store.setBatchStatus({ batchId: input.batchId, status: status(state), concurrency: state.concurrency });
}
