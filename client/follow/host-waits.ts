import type { Session } from '../../core/records/session.js';
import { hostWaitText } from '../../core/runs/host-wait.js';
import { hostTaskQueue } from '../../core/runs/workspace.js';
import type { ClientContext } from '../context.js';

/**
 * The hosts of these busy sessions that no worker serves: their tool calls wait for that host.
 * Empty when Temporal cannot be asked (nothing is running, so nothing waits).
 */
export async function hostsWithoutWorkers(context: ClientContext, sessions: Session[]): Promise<Set<string>> {
  const hosts = new Set(
    sessions.flatMap((session) => (session.status === 'busy' && session.host ? [session.host] : [])),
  );
  const unserved = new Set<string>();
  if (hosts.size === 0) return unserved;
  const temporal = await context.temporalIfRunning();
  if (!temporal) return unserved;
  // Temporal's protobuf definitions load only when there is a host to ask about.
  const { activityQueueServed } = await import('../../activities/hosts/pollers.js');
  const { namespace } = temporal.target;
  const { taskQueue } = context.settings;
  await Promise.all(
    [...hosts].map(async (host) => {
      try {
        if (!(await activityQueueServed(temporal.client.workflowService, namespace, hostTaskQueue(taskQueue, host))))
          unserved.add(host);
      } catch {
        // Unknown: say nothing rather than something wrong.
      }
    }),
  );
  return unserved;
}

/** What to show next to a busy session whose host has no worker. */
export function hostWaitNote(session: Session, unserved: Set<string>): string | undefined {
  if (session.status !== 'busy' || !session.host || !unserved.has(session.host)) return undefined;
  return `⏳ ${hostWaitText(session.host)}`;
}
