import { getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import { seededId } from '../../core/records/ids.js';
import type { QueuedPrompt } from '../../core/records/prompt.js';
import type { SessionRunInput } from '../../core/runs/run.js';
import type { BackgroundOutcome } from '../../activities/session/background-delivery-activities.js';
import { delivery, store } from '../activity-policies.js';

/**
 * A background subagent's run tells its parent how it ended (see `notifyParent`). The prompt id
 * depends only on this run (its workflow id and first run id, kept across continue-as-new), so a
 * retried delivery names the same prompt and the parent takes it once.
 */
export async function reportToParent(input: SessionRunInput, outcome: BackgroundOutcome): Promise<void> {
  if (!input.deliverTo) return;
  const info = workflowInfo();
  await delivery.notifyParent({
    parentId: input.deliverTo.sessionId,
    childId: input.sessionId,
    deliveryId: seededId('prm', Date.now(), `${input.sessionId}:${info.firstExecutionRunId}`),
    outcome,
    taskQueue: info.taskQueue,
    searchAttributes: input.searchAttributes,
  });
}

/**
 * The prompt signal's handler: queues a prompt once, however many times it is sent to this run (a
 * background subagent's report sent again after a retry).
 */
export function promptQueue(queued: QueuedPrompt[]): (prompt: QueuedPrompt) => void {
  const seen = new Set(queued.map((prompt) => prompt.promptId));
  return (prompt) => {
    // Clients older than Loom 0.2 sent the text itself, which no supported client does.
    if (typeof prompt?.promptId !== 'string' || seen.has(prompt.promptId)) return;
    seen.add(prompt.promptId);
    queued.push(prompt);
  };
}

/**
 * Asks every background subagent of a cancelled run's session to stop: those this run started,
 * and those earlier runs started that are still working. One that has finished already refuses
 * (it is closed), which is fine: there is nothing left to cancel.
 */
export async function cancelBackgroundChildren(sessionId: string, startedByThisRun: string[]): Promise<void> {
  const earlier = await store.busyBackgroundChildren({ sessionId });
  await Promise.all(
    [...new Set([...startedByThisRun, ...earlier])].map((id) =>
      getExternalWorkflowHandle(id)
        .cancel()
        .catch(() => undefined),
    ),
  );
}
