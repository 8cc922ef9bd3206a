import { proxyActivities } from '@temporalio/workflow';
import type { LoomActivities } from '../activities/index.js';
import type { FilesOutcome, FilesRequest } from '../activities/snapshot/files-activities.js';
import { onHost } from './activity-policies.js';

/**
 * A revert, unrevert or fork of a session's files, on the host that holds them: a workflow, so
 * that it finishes even when the command that asked for it goes away, and shows in the Temporal UI.
 * Its activity finishes what an interrupted attempt started.
 */
export async function sessionFilesWorkflow(request: FilesRequest & { host: string }): Promise<FilesOutcome> {
  const { host, ...asked } = request;
  const { changeSessionFiles } = proxyActivities<LoomActivities>(
    onHost(
      {
        summary: `${asked.action} ${asked.sessionId}`,
        startToCloseTimeout: '10 minutes',
        heartbeatTimeout: '10 seconds',
        retry: { initialInterval: '1 second', maximumAttempts: 5 },
      },
      { host },
    ),
  );
  return changeSessionFiles(asked);
}
