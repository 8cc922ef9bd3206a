import type { BatchProgress } from '../../core/batch/batch.js';
import type { BatchControl } from '../api.js';
import { progress, showProgress } from './progress.js';
import type { BatchRunInput, BatchState, TaskScopes } from './state.js';
import { cancelTasks } from './task.js';

/**
 * A person's pause, resume, cancel or new concurrency. It only changes state: anything it awaited
 * would interleave its commands with the loop's. The loop writes the new status to the store.
 */
export function applyControl(
  input: BatchRunInput,
  state: BatchState,
  scopes: TaskScopes,
  control: BatchControl,
): BatchProgress {
  if (control.action === 'pause') state.paused = true;
  if (control.action === 'resume') state.paused = false;
  if (control.action === 'concurrency') state.concurrency = control.value;
  if (control.action === 'cancel') {
    state.cancelRequested = true;
    cancelTasks(state, scopes);
  }
  showProgress(input, state);
  return progress(input, state);
}

export function validateControl(input: BatchRunInput, state: BatchState, control: BatchControl): void {
  if (state.cancelRequested) throw new Error(`Batch ${input.batchId} is being cancelled.`);
  if (control.action === 'concurrency' && !(Number.isInteger(control.value) && control.value >= 1)) {
    throw new Error(`Concurrency must be a whole number of at least 1, not ${control.value}.`);
  }
}
