import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { PermissionRecords } from '../../activities/store/permissions.js';
import type { SessionRecords } from '../../activities/store/sessions.js';

/** The reason shown in the Temporal UI for a run `loom cancel --terminate` ended. */
const TERMINATED_BY_PERSON = 'ended by `loom cancel --terminate`: no worker had to carry it out';

/**
 * Ends a session's open run and its busy subagents' runs at once, without a worker: for runs no
 * worker here can take (a build that is gone). Their running tools are not stopped and what the
 * run had not stored is lost, so the sessions are marked cancelled, and the questions they were
 * asking a person too. The ids of the runs ended.
 */
export async function terminateSession(
  client: Client,
  store: SessionRecords & PermissionRecords,
  sessionId: string,
): Promise<string[]> {
  const ended: string[] = [];
  const visit = async (id: string) => {
    if (await terminateRun(client, id)) {
      ended.push(id);
      if (await store.getSession(id)) await store.setSessionStatus(id, 'cancelled', Date.now());
      for (const request of await store.permissionRequests({ status: 'pending' }))
        if (request.sessionID === id) await store.savePermissionRequest({ ...request, status: 'cancelled' });
    }
    for (const child of await store.children(id)) if (child.status === 'busy') await visit(child.id);
  };
  await visit(sessionId);
  return ended;
}

async function terminateRun(client: Client, id: string): Promise<boolean> {
  try {
    const handle = client.workflow.getHandle(id);
    if ((await handle.describe()).status.name !== 'RUNNING') return false;
    await handle.terminate(TERMINATED_BY_PERSON);
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
