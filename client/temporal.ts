import { Client, Connection } from '@temporalio/client';
import { hostname } from 'node:os';
import { devServer, isListening } from './dev-server.js';
import { CliError } from './cli-error.js';
import { enums } from './proto-enums.js';
import type { ClientSettings } from './settings.js';

/** A poller seen this recently counts as a live worker (long polls last about a minute). */
const LIVE_POLLER_MS = 75_000;

export interface TemporalAccess {
  client: Client;
  connection: Connection;
  address: string;
}

/**
 * Connects to Temporal: the server named by `TEMPORAL_ADDRESS`, or the embedded dev server on
 * localhost, started in the background when nothing listens there yet.
 */
export async function connectTemporal(
  settings: ClientSettings,
  report: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TemporalAccess> {
  let address = settings.address;
  if (!address) {
    address = settings.embeddedAddress;
    if (!(await isListening(address))) {
      report(`Starting the Temporal dev server at ${address} …`);
      const output = await devServer('start', env);
      const ui = /https?:\/\/\S+/.exec(output)?.[0];
      report(`Temporal dev server running${ui ? ` · UI ${ui}` : ''} · \`loom down\` stops it`);
    }
  }
  try {
    const connection = await Connection.connect({ address, connectTimeout: '5 seconds' });
    return { client: new Client({ connection, namespace: settings.namespace }), connection, address };
  } catch (error) {
    const source = settings.address ? ' (from TEMPORAL_ADDRESS)' : '';
    throw new CliError(`Cannot reach Temporal at ${address}${source}: ${(error as Error).message}`);
  }
}

/** Whether a worker has polled the task queue for workflow tasks recently. */
export async function hasLiveWorker(client: Client, namespace: string, taskQueue: string): Promise<boolean> {
  const response = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: enums.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const now = Date.now();
  return (response.pollers ?? []).some((poller) => {
    const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
    return now - seconds * 1000 < LIVE_POLLER_MS && !isDeadLocalWorker(poller.identity ?? '');
  });
}

/**
 * The server lists a stopped worker's pollers for a minute or more. A Loom worker on this machine
 * (identity `loom@<host>:<pid>`) whose process is gone is known to be dead.
 */
function isDeadLocalWorker(identity: string): boolean {
  const match = /^loom@(.+):(\d+)$/.exec(identity);
  if (!match || match[1] !== hostname()) return false;
  try {
    process.kill(Number(match[2]), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
