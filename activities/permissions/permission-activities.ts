import type { PermissionRule } from '../../core/rules/permission.js';
import type { PermissionRequestRecord } from '../../core/rules/permission-request.js';
import type { ActivityDeps } from '../deps.js';
import { localHostId } from '../hosts/host-id.js';
import { pluginPermissionVerdict, type PluginVerdict } from '../plugins/permission-ask.js';
import { warnOnceInWorkerLog } from '../process/worker-log.js';
import { trustedProjectFiles } from '../config/trust.js';

export type { PluginVerdict } from '../plugins/permission-ask.js';

/** The store side of permission requests: what waits, what was answered, what is always allowed. */
export function createPermissionActivities({ store, env, hostId }: ActivityDeps) {
  /**
   * Stores a request. With `askPlugins` (a new request, from a workflow that reads the answer),
   * the project's `permission.ask` hooks answer first: a request they allow or deny is stored as
   * answered (never pending, so nobody is asked) and their verdict returned; undefined means "ask
   * a person". A reply's write passes no option.
   *
   * This runs on the shared queue with the other store calls, not on the workspace's host queue
   * (the gate does not know the run's host, and moving the call there changes the workflow's
   * commands). Plugins are files of the workspace, so the hooks run only when this worker is on
   * the session's host; elsewhere a person is asked. On one machine (the default) that is always.
   */
  async function savePermissionRequest(
    request: PermissionRequestRecord,
    options?: { askPlugins?: boolean },
  ): Promise<PluginVerdict | undefined> {
    const verdict = options?.askPlugins && request.status === 'pending' ? await askPlugins(request) : undefined;
    if (!verdict) {
      await store.savePermissionRequest(request);
      return undefined;
    }
    const message = `${verdict.status === 'allow' ? 'Allowed' : 'Denied'} by plugin ${verdict.plugin} (permission.ask)`;
    await store.savePermissionRequest({
      ...request,
      status: verdict.status === 'allow' ? 'approved' : 'rejected',
      reply: { reply: verdict.status === 'allow' ? 'once' : 'reject', message },
      time: { ...request.time, replied: Date.now() },
    });
    return verdict;
  }

  async function askPlugins(request: PermissionRequestRecord): Promise<PluginVerdict | undefined> {
    const session = await store.getSession(request.sessionID);
    if (!session) return undefined;
    const here = hostId ?? localHostId(env);
    if (session.host && session.host !== here) {
      warnOnceInWorkerLog(
        `Plugins' "permission.ask" hooks of host ${session.host} cannot run on worker host ${here}; its permission requests go to a person when this worker stores them`,
      );
      return undefined;
    }
    return pluginPermissionVerdict(
      session.directory,
      env,
      await trustedProjectFiles(store, session.directory),
      request,
    );
  }

  async function loadApprovedRules(rootId: string): Promise<PermissionRule[]> {
    return store.approvedRules(rootId);
  }

  async function approveAlways(input: { rootId: string; rules: PermissionRule[] }): Promise<void> {
    await store.addApprovedRules(input.rootId, input.rules);
  }

  return { savePermissionRequest, loadApprovedRules, approveAlways };
}
