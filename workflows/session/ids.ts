import { workflowInfo } from '@temporalio/workflow';
import { idSequence, nextId, type IdPrefix } from '../../core/records/ids.js';
import type { RunState } from './run-state.js';

/**
 * Ids from the run's own sequence: the same on every attempt of a workflow task, so the store
 * writes of a task that is tried again land on the same rows.
 */
export function drawId(state: RunState, prefix: IdPrefix): string {
  // `startTime` comes from the run's start event; `runStartTime` is the first task's, which a retry changes.
  state.ids ??= idSequence(workflowInfo().startTime.getTime());
  return nextId(prefix, state.ids, Math.random);
}
