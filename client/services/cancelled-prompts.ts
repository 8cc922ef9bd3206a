import { defaultPayloadConverter, type Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { ChangeFeed } from '../../activities/store/change-feed.js';
import { expandedPromptId, type QueuedPrompt } from '../../core/records/prompt.js';
import { promptSignal } from '../../workflows/api.js';

/**
 * A prompt sent to a session while its run is being cancelled must not go down with that run.
 * The run takes queued prompts only at its next step, and a cancelled run takes no further step:
 * once the cancel reaches the workflow, every activity it schedules (outside the non-cancellable
 * clean-up, which writes no user message) is refused at once. So a prompt whose signal comes after
 * the cancel request in the run's history is never taken, and must start the next run.
 */

/** The id of the session's open run when a cancel was requested of it and it has not closed yet. */
export async function cancellingRun(client: Client, sessionId: string): Promise<string | undefined> {
  try {
    const { status, runId, raw } = await client.workflow.getHandle(sessionId).describe();
    return status.name === 'RUNNING' && raw.workflowExtendedInfo?.cancelRequested ? runId : undefined;
  } catch {
    // No run yet (or none we can see): sending the prompt starts one.
    return undefined;
  }
}

/**
 * What became of a prompt sent to a run that then closed as cancelled: `taken` (it is in the
 * conversation, and the cancel ended the turn answering it) or `dropped` (it never reached the
 * conversation: send it again).
 */
export async function promptFate(
  client: Client,
  store: ChangeFeed,
  sent: { sessionId: string; runId: string; promptId: string; since: number },
): Promise<'taken' | 'dropped'> {
  if (await cancelledBeforePrompt(client, sent)) return 'dropped';
  // The cancel came after the prompt was queued: the run may have taken it before it stopped.
  // A prompt taken becomes a user message naming it (a slash command's expansion, or its subtask,
  // names the prompt derived from it, see activities/session/command-activities.ts).
  const names = new Set([sent.promptId, expandedPromptId(sent.promptId)]);
  const { messages } = await store.changes(sent.sessionId, sent.since);
  const taken = messages.some((message) => message.role === 'user' && message.promptID && names.has(message.promptID));
  return taken ? 'taken' : 'dropped';
}

/** Whether the run's history holds a cancel request before the signal that brought the prompt. */
async function cancelledBeforePrompt(
  client: Client,
  sent: { sessionId: string; runId: string; promptId: string },
): Promise<boolean> {
  let history;
  try {
    history = await client.workflow.getHandle(sent.sessionId, sent.runId).fetchHistory();
  } catch {
    return false;
  }
  let cancelRequested = false;
  for (const event of history.events ?? []) {
    if (event.workflowExecutionCancelRequestedEventAttributes) cancelRequested = true;
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName !== promptSignal.name) continue;
    const payload = signal.input?.payloads?.[0];
    const prompt = payload ? defaultPayloadConverter.fromPayload<QueuedPrompt>(payload as Payload) : undefined;
    if (prompt?.promptId === sent.promptId) return cancelRequested;
  }
  return false;
}
