import { ActivityCancellationType, getExternalWorkflowHandle, proxyActivities } from '@temporalio/workflow';
import type { LoomActivities } from '../activities/index.js';
import type { HandedOverTask } from '../activities/batch-task-ends.js';
import type { BatchTaskEnd } from '../core/batch-task-end.js';

/**
 * A task running when its run continued as new, as the next run carries it: a batch run hands its
 * running tasks to the next run rather than letting them finish first, so the window stays full.
 */
export interface CarriedTask extends HandedOverTask {
  attempt: number;
}

/** Lasts as long as the tasks it waits for; heartbeats, and is cancelled when the run continues as new. */
const taskEnds = proxyActivities<LoomActivities>({
  summary: 'tasks handed over',
  startToCloseTimeout: '1 day',
  heartbeatTimeout: '30 seconds',
  cancellationType: ActivityCancellationType.TRY_CANCEL,
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Waits for the tasks an earlier run handed over (`waiting()` says which are still out) and
 * reports each one's end, until none is left.
 */
export async function watchHandedOver(
  waiting: () => HandedOverTask[],
  ended: (index: number, end: BatchTaskEnd) => void,
): Promise<void> {
  for (let tasks = waiting(); tasks.length > 0; tasks = waiting()) {
    const ends = await taskEnds.awaitBatchTaskEnds({ tasks });
    for (const { index, ...end } of ends) ended(index, end);
  }
}

/**
 * Asks a task's session run to stop, by its id: the batch's runs do not close their tasks when
 * they end. One that has ended already refuses, which is fine.
 */
export function cancelTask(sessionId: string): Promise<void> {
  return getExternalWorkflowHandle(sessionId)
    .cancel()
    .catch(() => undefined);
}
