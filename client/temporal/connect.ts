import { Client, Connection } from '@temporalio/client';
import { devServer, isListening } from './dev-server.js';
import { InputError } from '../input-error.js';
import { livePollers } from '../../activities/hosts/pollers.js';
import { connectionOptions } from '../../worker/connection/connection-options.js';
import type { TemporalTarget } from '../../worker/connection/target.js';
import { openCheckedConnection } from './check.js';
import { tracingWanted } from '../../worker/tracing/wanted.js';
import {
  checkSearchAttributes,
  firstTimeNotice,
  missingAttributesNotice,
  type SearchAttributeState,
} from './search-attributes.js';

export interface TemporalAccess {
  client: Client;
  connection: Connection;
  address: string;
  target: TemporalTarget;
  /** Whether runs may carry Loom's search attributes: the namespace has them (see `checkSearchAttributes`). */
  searchAttributes: boolean;
}

/**
 * Connects to Temporal: the server the target names (checked first with a connection that does
 * not retry, so a refused credential or an unknown namespace is said at once), or the embedded dev
 * server on localhost, started in the background when nothing listens there yet.
 */
export async function connectTemporal(
  target: TemporalTarget,
  report: (line: string) => void,
  options: { env?: NodeJS.ProcessEnv; dataDir: string },
): Promise<TemporalAccess> {
  const env = options.env ?? process.env;
  const { address } = target;
  if (target.embedded && !(await isListening(address))) {
    report(`Starting the Temporal dev server at ${address} …`);
    const output = await devServer('start', env, report);
    const ui = /https?:\/\/\S+/.exec(output)?.[0];
    report(`Temporal dev server running${ui ? ` · UI ${ui}` : ''} · \`loom down\` stops it`);
  }
  let connection: Connection;
  let searchAttributes = true;
  if (target.embedded && target.namespace === 'default') {
    // Loom's own server, just found or started: it registered the search attributes when it started.
    try {
      connection = await Connection.connect({ ...connectionOptions(target), connectTimeout: '5 seconds' });
    } catch (error) {
      throw new InputError(
        `Cannot reach Temporal at ${address} (${target.sources.address}): ${(error as Error).message}`,
      );
    }
  } else {
    // Checked, and its search attributes looked at, in one round trip.
    const opened = await openCheckedConnection(target, (checked) =>
      checkSearchAttributes(checked, target, { add: true }),
    );
    connection = opened.connection;
    searchAttributes = target.embedded || sayOfSearchAttributes(opened.alongside!, target, report, options.dataDir);
  }
  // A traced command's runs carry its span, so the trace starts where the person typed.
  const interceptors = tracingWanted(env)
    ? (await import('../../worker/tracing/client-interceptors.js')).tracedClientInterceptors()
    : undefined;
  return {
    client: new Client({ connection, namespace: target.namespace, interceptors }),
    connection,
    address,
    target,
    searchAttributes,
  };
}

/**
 * What became of Loom's search attributes: added (said), there, or
 * missing (said once, with how to add them; runs go without).
 */
function sayOfSearchAttributes(
  found: SearchAttributeState,
  target: TemporalTarget,
  report: (line: string) => void,
  dataDir: string,
): boolean {
  if (found.state === 'added')
    report(`Added Loom's search attributes to namespace ${target.namespace}: ${found.names.join(', ')}.`);
  if (found.state !== 'missing') return true;
  const notice = missingAttributesNotice(target, found);
  if (firstTimeNotice(dataDir, target, notice))
    report(`warning: ${notice}\n(Said once per namespace on this machine; \`loom status\` shows it again.)`);
  return false;
}

/** Whether a worker has polled the task queue for workflow tasks recently. */
export async function hasLiveWorker(client: Client, namespace: string, taskQueue: string): Promise<boolean> {
  return (await livePollers(client.workflowService, namespace, taskQueue, 'workflow')).length > 0;
}
