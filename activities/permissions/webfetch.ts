import type { PermissionRequest } from '../../core/rules/permission.js';
import { localAddressOf } from './local-network.js';

/**
 * A fetch of an address on this machine or its network asks, whatever the catch-all `webfetch`
 * rule says: a prompt-injected page must not make the agent probe local services. Only a rule (or
 * an "always" reply) naming the URL lets it through.
 */
export async function webfetchPermissions(
  input: { url?: unknown },
  planned: PermissionRequest[],
): Promise<PermissionRequest[]> {
  const url = String(input.url ?? '');
  if (!(await localAddressOf(url))) return planned;
  return [...planned, { permission: 'webfetch', patterns: [url], always: [url], explicit: true }];
}
