import type { Client } from '@temporalio/client';
import { enums } from '../../activities/hosts/proto-enums.js';

/** A run that never started has a handful of events: its start and workflow tasks scheduled, started, failed. */
const FIRST_EVENTS = 20;

/**
 * Whether no worker has completed a workflow task of the run: nothing of it ran, so no build
 * holds its history and no tool or store write of it happened. Such a run can be ended outright
 * and is taken by whichever build polls first. False when unsure (a longer history).
 */
export async function runNeverStarted(client: Client, execution: { workflowId: string; runId: string }) {
  const { history, nextPageToken } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution,
    maximumPageSize: FIRST_EVENTS,
  });
  if (nextPageToken?.length) return false;
  return !(history?.events ?? []).some(
    ({ eventType }) => eventType === enums.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  );
}

/** The reason a run no worker had started is ended with, shown in the Temporal UI. */
export const CANCELLED_BEFORE_START = 'cancelled before any worker started it';
