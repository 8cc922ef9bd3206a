import type { WorkflowHandle } from '@temporalio/client';
import { enums } from '../../activities/hosts/proto-enums.js';

/** A live worker takes a task within milliseconds; this long untaken means none serves the queue. */
const UNTAKEN_MS = 3_000;

/**
 * Whether a run's next task waits with no worker taking it: its workflow task, or an activity
 * scheduled again after the worker running it died. Temporal lists a killed worker's pollers as
 * live for over a minute, so this is how a follower learns that the run needs a worker now.
 */
export async function waitsForWorker(handle: WorkflowHandle, now = Date.now()): Promise<boolean> {
  const { raw, status } = await handle.describe();
  if (status.name !== 'RUNNING') return false;
  const task = raw.pendingWorkflowTask;
  const taskWaiting =
    task?.state === enums.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED &&
    now - seconds(task.scheduledTime) > UNTAKEN_MS;
  const activityWaiting = (raw.pendingActivities ?? []).some(
    (activity) =>
      activity.state === enums.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED &&
      (activity.attempt ?? 1) > 1 &&
      now - seconds(activity.lastAttemptCompleteTime) > UNTAKEN_MS,
  );
  return taskWaiting || activityWaiting;
}

function seconds(time: { seconds?: unknown } | null | undefined): number {
  return Number(time?.seconds ?? 0) * 1000;
}
