import { defaultPayloadConverter, type Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { SessionRunInput } from '../../core/runs/run.js';
import { defaultTitle, type Session } from '../../core/records/session.js';

/**
 * A session whose run was started but that no worker has stored yet (its row is written by the
 * run's first steps): what its run's start says of it, busy. Undefined when there is no such run.
 */
export async function startedSession(client: Client, id: string): Promise<Session | undefined> {
  const description = await client.workflow.getHandle(id).describe();
  if (description.status.name !== 'RUNNING' || description.type !== 'sessionWorkflow') return undefined;
  // The first event is the start, with the run's input: one page of one event, however long the run.
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: id, runId: description.runId },
    maximumPageSize: 1,
  });
  const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  if (!payload) return undefined;
  const input = defaultPayloadConverter.fromPayload<SessionRunInput>(payload as Payload);
  const created = description.startTime.getTime();
  return {
    id,
    ...(input.parentId ? { parentID: input.parentId } : {}),
    title: input.title ?? defaultTitle(input.parentId !== undefined, created),
    agent: input.agent ?? '',
    model: input.model ?? '',
    directory: input.directory,
    ...(input.host ? { host: input.host } : {}),
    status: 'busy',
    time: { created, updated: created },
  };
}
