import type { Client } from '@temporalio/client';
import { activityQueueServed, livePollers } from '../../activities/hosts/pollers.js';
import type { Session } from '../../core/records/session.js';
import { hostTaskQueue } from '../../core/runs/workspace.js';
import { hostWaitNote } from '../follow/host-waits.js';
import { latestRunOf } from '../follow/tree-runs.js';
import { startedSession } from '../services/started-session.js';
import type { ServeDeps } from './deps.js';

/** Work that cannot move until a worker comes: the session's run (no worker on the task queue) or its tools (none on its host). */
export type WorkWait =
  { type: 'worker'; taskQueue: string; message: string } | { type: 'host'; host: string; message: string };

/** How long a read waits for Temporal's answer before it answers without one. */
const ASK_MS = 3_000;

export function workerWaitMessage(taskQueue: string): string {
  return (
    `Waiting for a worker: none serves task queue "${taskQueue}". Start \`loom worker\` with the same Temporal and ` +
    'task queue (or run `loom serve` without --no-worker); the session runs as soon as one does.'
  );
}

/**
 * What the session's work waits for, as `loom ls` tells of hosts: no worker polls the task queue
 * while the session has a run open (a run just started, or a prompt sent to an idle session), or
 * its host has none while it is busy. Undefined when nothing waits for a worker.
 */
export async function workWait(client: Client, taskQueue: string, session: Session): Promise<WorkWait | undefined> {
  const { workflowService: service, options } = client;
  const served = (await livePollers(service, options.namespace, taskQueue, 'workflow')).length > 0;
  if (!served)
    return (await latestRunOf({ client }, session.id))?.open
      ? { type: 'worker', taskQueue, message: workerWaitMessage(taskQueue) }
      : undefined;
  const { host } = session;
  if (session.status !== 'busy' || !host) return undefined;
  if (await activityQueueServed(service, options.namespace, hostTaskQueue(taskQueue, host))) return undefined;
  return { type: 'host', host, message: hostWaitNote(session, new Set([host]))! };
}

/**
 * `ask`'s answer, or undefined when Temporal cannot answer within a few seconds: reads come from
 * the store and must not hang on Temporal, so what it would add is left out rather than guessed.
 */
export async function askTemporal<T>(ask: () => Promise<T | undefined>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ASK_MS)));
  try {
    return await Promise.race([ask().catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A session the store holds, or one started a moment ago that no worker has stored yet (asked of Temporal). */
export async function knownSession(
  deps: Pick<ServeDeps, 'store' | 'client'>,
  id: string,
): Promise<Session | undefined> {
  return (await deps.store.getSession(id)) ?? (await askTemporal(async () => startedSession(await deps.client(), id)));
}
