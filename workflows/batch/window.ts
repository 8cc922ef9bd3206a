import type { ClaimedTask } from '../../activities/batch/batch-activities.js';
import { store } from '../activity-policies.js';
import { showProgress } from './progress.js';
import { waiting, type BatchRunInput, type BatchState, type TaskScopes } from './state.js';
import { startTask } from './task.js';

/** Tasks claimed (given sessions) per activity call. */
const CLAIM_PAGE = 50;

/** Whether a task may start now: the window has room, tasks wait, and nothing holds the batch back. */
export function canStart(input: BatchRunInput, state: BatchState): boolean {
  return (
    !state.budgetReached &&
    !state.paused &&
    !state.cancelRequested &&
    state.running.size < state.concurrency &&
    waiting(input, state) > 0 &&
    !state.claiming
  );
}

/** Claims tasks for the room in the window (tasks to try again first) and starts each one's session run. */
export async function fillWindow(input: BatchRunInput, state: BatchState, scopes: TaskScopes): Promise<void> {
  state.claiming = true;
  const room = Math.min(state.concurrency - state.running.size, CLAIM_PAGE);
  const firstIndex = state.nextIndex;
  const picks = state.retryQueue.splice(0, room);
  while (picks.length < room && state.nextIndex < input.total) picks.push({ index: state.nextIndex++, attempt: 1 });
  const claimed = await store.claimBatchTasks({ batchId: input.batchId, tasks: picks });
  followClaim(state, picks, claimed, firstIndex);
  for (const task of claimed) startTask(input, state, scopes, task);
  state.claiming = false;
  showProgress(input, state);
}

/**
 * What was claimed is what history recorded. A replay may reach a claim at another moment than
 * the run did (local activity results and child completions interleave), and so pick other
 * tasks; the claim's recorded result decides, so no task is started twice or skipped.
 */
function followClaim(
  state: BatchState,
  picks: { index: number; attempt: number }[],
  claimed: ClaimedTask[],
  firstIndex: number,
): void {
  const key = (task: { index: number; attempt: number }) => `${task.index}:${task.attempt}`;
  const taken = new Set(claimed.map(key));
  const retries = picks.filter((pick) => pick.attempt > 1);
  state.retryQueue = [
    ...retries.filter((pick) => !taken.has(key(pick))),
    ...state.retryQueue.filter((pick) => !taken.has(key(pick))),
  ];
  const firsts = claimed.filter((task) => task.attempt === 1).map((task) => task.index + 1);
  state.nextIndex = Math.max(firstIndex, ...firsts);
}
