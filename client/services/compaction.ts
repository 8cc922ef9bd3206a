import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { ModelRetry } from '../../core/runs/run.js';
import type { Session } from '../../core/records/session.js';
import { interactivePriority } from '../../core/runs/task-priority.js';
import { sessionWorkflow } from '../../workflows/index.js';
import { InputError } from '../input-error.js';
import type { SessionHandle } from './sessions.js';

/** Starts a run that summarises an idle session; from then on its model sees the summary. */
export async function startCompaction(
  client: Client,
  session: Session,
  options: { taskQueue: string; hostId: string; model?: string; modelRetry?: ModelRetry },
): Promise<SessionHandle> {
  try {
    return await client.workflow.start(sessionWorkflow, {
      workflowId: session.id,
      taskQueue: options.taskQueue,
      args: [
        {
          sessionId: session.id,
          directory: session.directory,
          host: session.host ?? options.hostId,
          agent: session.agent,
          model: options.model,
          compact: true,
          modelRetry: options.modelRetry,
        },
      ],
      staticSummary: `compaction · ${session.title}`,
      priority: interactivePriority,
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError)
      throw new InputError(`Session ${session.id} is busy; compact it once its run has finished.`);
    throw error;
  }
}
