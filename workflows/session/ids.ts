import { patched, workflowInfo } from '@temporalio/workflow';
import { idSequence, newId, nextId, type IdPrefix } from '../../core/ids.js';
import type { RunState } from './run-state.js';

/**
 * Ids from the run's own sequence: the same on every attempt of a workflow task, so the store
 * writes of a task that is tried again land on the same rows. Runs recorded before drew ids from
 * the task's clock; the patch keeps their replays drawing those.
 */
export const IDS_FROM_RUN_SEQUENCE = 'ids-from-run-sequence';

export function drawId(state: RunState, prefix: IdPrefix): string {
  if (!patched(IDS_FROM_RUN_SEQUENCE)) return newId(prefix, Date.now(), Math.random);
  // `startTime` comes from the run's start event; `runStartTime` is the first task's, which a retry changes.
  state.ids ??= idSequence(workflowInfo().startTime.getTime(), [state.userMessageId, state.assistantMessageId ?? '']);
  return nextId(prefix, state.ids, Math.random);
}
