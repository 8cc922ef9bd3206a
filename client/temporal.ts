import { Client, Connection } from '@temporalio/client';
import { devServer, isListening } from './dev-server.js';
import { CliError } from './cli-error.js';
import { livePollers } from '../activities/hosts/pollers.js';
import type { ClientSettings } from './settings.js';

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
  return (await livePollers(client.workflowService, namespace, taskQueue, 'workflow')).length > 0;
}
