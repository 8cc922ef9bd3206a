import { storedHostOr } from '../../activities/hosts/host-id.js';
import type { FilesOutcome, FilesRequest } from '../../activities/snapshot/files-activities.js';
import type { ClientContext } from '../context.js';

/**
 * Runs `loom revert`, `unrevert` or `fork`. When a worker polls the task queue (`loom worker`,
 * `loom serve`), it does the work, as a workflow on the host that holds the files. When none does
 * and the files are on this machine, the work is done here, at once: starting a worker in this
 * process for it took seconds. Run again after an interruption, each finishes what it started.
 */
export async function changeFiles(context: ClientContext, request: FilesRequest): Promise<FilesOutcome> {
  const session = await context.store.getSession(request.sessionId);
  // An unknown session is reported by the work itself, without starting anything.
  const filesHere = !session || storedHostOr(session.host, context.hostId) === context.hostId;
  if (filesHere && !(await workerPolls(context))) {
    const { changeFilesHere } = await import('../../activities/snapshot/files-activities.js');
    return changeFilesHere({ store: context.store, dataDir: context.settings.dataDir }, request);
  }
  const { client } = await context.temporal();
  await context.ensureWorker();
  const { changeSessionFiles } = await import('../services/session-files.js');
  return changeSessionFiles({ client, taskQueue: context.settings.taskQueue, store: context.store }, request);
}

/** Whether a worker polls the task queue (never starts the embedded Temporal server to find out). */
async function workerPolls(context: ClientContext): Promise<boolean> {
  const temporal = await context.temporalIfRunning();
  if (!temporal) return false;
  const { hasLiveWorker } = await import('../temporal/connect.js');
  return hasLiveWorker(temporal.client, temporal.target.namespace, context.settings.taskQueue);
}
