import { hostname } from 'node:os';
import { livePollers } from '../../activities/hosts/pollers.js';
import { checkHostId, hostTaskQueue } from '../../core/runs/workspace.js';
import { maxCachedWorkflowsFrom, type ServedQueues } from '../../worker/create-worker.js';
import { installQuietRuntime, setServerDown } from '../../worker/runtime.js';
import { metricsAddress, MetricsPortError, type MetricsAddress } from '../../worker/metrics/metrics-address.js';
import { reportLiveCounts } from '../../worker/metrics/live-gauges.js';
import pc from 'picocolors';
import { InputError } from '../input-error.js';
import { exitWhenWritten } from '../process-output.js';
import { portState, watchServer } from '../follow/server-watch.js';
import { serverUnreachableMessage } from '../temporal/transport-error.js';
import type { ClientContext } from '../context.js';

export interface WorkerOptions {
  hostId?: string;
  sharedOnly?: boolean;
  hostOnly?: boolean;
  maxCachedWorkflows?: string;
  metricsPort?: string;
  makeCurrent?: boolean;
}

/**
 * `loom worker`: runs a worker until Ctrl-C or SIGTERM. It serves the shared task queue (workflows,
 * model calls) and its host's queue (the tools of the workspaces on this machine). Start several to
 * scale out.
 */
export async function workerCommand(context: ClientContext, options: WorkerOptions = {}): Promise<number> {
  if (options.sharedOnly && options.hostOnly)
    throw new InputError('--shared-only and --host-only exclude each other: leave both out to serve both queues.');
  const serve: ServedQueues = options.sharedOnly ? 'shared' : options.hostOnly ? 'host' : 'both';
  const hostId = options.hostId ? hostIdFlag(options.hostId) : context.hostId;
  const maxCachedWorkflows = cachedWorkflowsFlag(options.maxCachedWorkflows, context.env);
  const target = await context.target();
  if (!target.embedded && (await portState(target.address)) === 'refused') {
    throw new InputError(serverUnreachableMessage(target));
  }
  const metrics = metricsFlag(options.metricsPort, context.env);
  installRuntime(metrics);
  const access = await context.temporal();
  const { address, client } = access;
  const { namespace } = target;
  const { taskQueue } = context.settings;
  if (serve !== 'shared') {
    const others = (
      await livePollers(client.workflowService, namespace, hostTaskQueue(taskQueue, hostId), 'activity')
    ).filter((poller) => poller.machine !== undefined && poller.machine !== hostname());
    if (others.length > 0) {
      context.report(
        `Warning: host id "${hostId}" is already served by a worker on ${[...new Set(others.map((poller) => poller.machine))].join(', ')}. ` +
          `Tools of sessions on "${hostId}" would run on either machine: give each machine its own LOOM_HOST_ID (or --host-id).`,
      );
    }
  }
  const queues = await context.ensureWorker(true, {
    hostId,
    serve,
    maxCachedWorkflows,
    ...(options.makeCurrent ? { makeCurrent: 'always' as const } : {}),
  });
  const described = queues.map((queue) =>
    queue === taskQueue ? `"${queue}" (shared)` : `"${queue}" (workspace tools of host ${hostId})`,
  );
  const stopGauges = metrics ? reportLiveCounts(context.store) : undefined;
  if (metrics)
    context.report(
      `Prometheus metrics at http://${metrics.bindAddress.replace(/^0\.0\.0\.0:/, `${hostname()}:`)}/metrics (${metrics.source}).`,
    );
  const version = context.workerVersion();
  const build =
    version && !('error' in version)
      ? ` as build ${version.buildId} of worker deployment "${version.deploymentName}"`
      : '';
  context.report(
    `Loom worker polling task queue ${described.join(' and ')} on ${address} (namespace ${namespace})${build}. Ctrl-C stops it.`,
  );
  // An outage is something a durable worker waits out: said once, in one line, not once per poll.
  let down = false;
  const stopWatching = watchServer(access, {
    lost: () => {
      down = true;
      setServerDown(true);
      context.report(
        `${pc.yellow('Warning:')} ${serverUnreachableMessage(target)} The worker waits for it and carries on when it is back.`,
      );
    },
    back: () => {
      down = false;
      setServerDown(false);
      context.report(`The Temporal server at ${address} answers again; the worker carries on.`);
    },
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  stopWatching();
  stopGauges?.();
  if (down) {
    // Draining would wait on the server that is gone: nothing is in flight that Temporal will not hand out again.
    context.report('Stopped the worker (the Temporal server is still down).');
    await context.store.close().catch(() => undefined);
    return exitWhenWritten(0);
  }
  context.report('Stopping the worker …');
  return 0;
}

function metricsFlag(value: string | undefined, env: NodeJS.ProcessEnv): MetricsAddress | undefined {
  try {
    return metricsAddress(value, env);
  } catch (error) {
    throw new InputError((error as Error).message, 2);
  }
}

function installRuntime(metrics: MetricsAddress | undefined): void {
  try {
    installQuietRuntime('WARN', { metrics });
  } catch (error) {
    if (error instanceof MetricsPortError) throw new InputError(error.message);
    throw error;
  }
}

function cachedWorkflowsFlag(value: string | undefined, env: NodeJS.ProcessEnv): number | undefined {
  try {
    return value === undefined
      ? maxCachedWorkflowsFrom(env)
      : maxCachedWorkflowsFrom(env, '--max-cached-workflows', value);
  } catch (error) {
    throw new InputError((error as Error).message);
  }
}

function hostIdFlag(value: string): string {
  try {
    return checkHostId(value, '--host-id');
  } catch (error) {
    throw new InputError((error as Error).message);
  }
}
