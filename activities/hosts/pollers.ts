import type { WorkflowService } from '@temporalio/client';
import { hostname } from 'node:os';
import { enums } from './proto-enums.js';

/** A poller seen this recently counts as a live worker (long polls last about a minute). */
const LIVE_POLLER_MS = 75_000;

/** A worker polling a task queue: `loom@<machine>:<pid>` for Loom's own. */
export interface LivePoller {
  identity: string;
  /** The machine named in a Loom worker's identity. */
  machine?: string;
  pid?: number;
}

/**
 * The workers that polled a task queue recently, for workflow or activity tasks. A Loom worker of
 * this machine whose process is gone is left out: the server lists a stopped worker's pollers for
 * a minute or more.
 */
export async function livePollers(
  service: WorkflowService,
  namespace: string,
  taskQueue: string,
  kind: 'workflow' | 'activity',
): Promise<LivePoller[]> {
  const response = await service.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType:
      kind === 'workflow' ? enums.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW : enums.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  const now = Date.now();
  return (response.pollers ?? [])
    .filter((poller) => now - Number(poller.lastAccessTime?.seconds ?? 0) * 1000 < LIVE_POLLER_MS)
    .map((poller) => parseIdentity(poller.identity ?? ''))
    .filter((poller) => !isDeadLocalWorker(poller));
}

/** The identity a Loom worker polls with. */
export function workerIdentity(): string {
  return `loom@${hostname()}:${process.pid}`;
}

function parseIdentity(identity: string): LivePoller {
  const match = /^loom@(.+):(\d+)$/.exec(identity);
  return match ? { identity, machine: match[1], pid: Number(match[2]) } : { identity };
}

function isDeadLocalWorker(poller: LivePoller): boolean {
  if (poller.machine !== hostname() || poller.pid === undefined) return false;
  try {
    process.kill(poller.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Whether a task queue's activities have a live worker: whether a host's workspace is served. */
export async function activityQueueServed(
  service: WorkflowService,
  namespace: string,
  taskQueue: string,
): Promise<boolean> {
  return (await livePollers(service, namespace, taskQueue, 'activity')).length > 0;
}
