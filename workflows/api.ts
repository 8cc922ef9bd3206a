import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PermissionReply } from '../core/rules/permission-request.js';
import type { BatchProgress } from '../core/batch/batch.js';
import type { QueuedPrompt } from '../core/records/prompt.js';
import { PROMPT_SIGNAL, SESSION_WORKFLOW_TYPE, type RunProgress, type WaitingRequest } from '../core/runs/run.js';

/** Signals, queries and updates of `sessionWorkflow`, declared once for the workflow and the client. */

/** A new prompt for a session whose run is busy, by its id in the store: handled at the run's next step. */
export const promptSignal = defineSignal<[QueuedPrompt]>(PROMPT_SIGNAL);

export const progressQuery = defineQuery<RunProgress>('progress');

/**
 * A person's answer to a permission request of this run. Rejected by its validator when the run
 * has no such request waiting (unknown, or answered already).
 */
export const permissionReplyUpdate = defineUpdate<
  { requestId: string; status: 'approved' | 'rejected' },
  [PermissionReply]
>('permissionReply');

/** A subagent's run tells its parent's run every request waiting in its own subtree (none: empty). */
export interface WaitingReport {
  sessionId: string;
  requests: WaitingRequest[];
}

/**
 * Sent by a subagent's run to its parent session's run whenever the requests waiting in its
 * subtree change, so every ancestor up to the root is marked waiting (`LoomWaiting`) and names them.
 */
export const waitingSignal = defineSignal<[WaitingReport]>('waitingRequests');

export { SESSION_WORKFLOW_TYPE };

/** Controls of a running batch: pause, resume, cancel, or a new concurrency limit. */
export type BatchControl =
  { action: 'pause' } | { action: 'resume' } | { action: 'cancel' } | { action: 'concurrency'; value: number };

export const batchControlUpdate = defineUpdate<BatchProgress, [BatchControl]>('batchControl');

export const batchProgressQuery = defineQuery<BatchProgress>('batchProgress');

export const BATCH_WORKFLOW_TYPE = 'batchWorkflow';
