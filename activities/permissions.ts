import type { PermissionRule } from '../core/permission.js';
import type { PermissionRequestRecord } from '../core/permission-request.js';
import type { ActivityDeps } from './deps.js';

/** The store side of permission requests: what waits, what was answered, what is always allowed. */
export function createPermissionActivities({ store }: ActivityDeps) {
  async function savePermissionRequest(request: PermissionRequestRecord): Promise<void> {
    await store.savePermissionRequest(request);
  }

  async function loadApprovedRules(rootId: string): Promise<PermissionRule[]> {
    return store.approvedRules(rootId);
  }

  async function approveAlways(input: { rootId: string; rules: PermissionRule[] }): Promise<void> {
    await store.addApprovedRules(input.rootId, input.rules);
  }

  return { savePermissionRequest, loadApprovedRules, approveAlways };
}
