import { hostname } from 'node:os';
import { livePollers } from '../../activities/hosts/pollers.js';
import { checkHostId, hostTaskQueue } from '../../core/workspace.js';
import { maxCachedWorkflowsFrom, type ServedQueues } from '../../worker/create-worker.js';
import { installQuietRuntime } from '../../worker/runtime.js';
import { CliError } from '../cli-error.js';
import type { CliContext } from '../context.js';

export interface WorkerOptions {
  hostId?: string;
  sharedOnly?: boolean;
  hostOnly?: boolean;
  maxCachedWorkflows?: string;
}

/**
 * `loom worker`: runs a worker until Ctrl-C or SIGTERM. It serves the shared task queue (workflows,
 * model calls) and its host's queue (the tools of the workspaces on this machine). Start several to
 * scale out.
 */
export async function workerCommand(context: CliContext, options: WorkerOptions = {}): Promise<number> {
  if (options.sharedOnly && options.hostOnly) throw new CliError('--shared-only and --host-only exclude each other: leave both out to serve both queues.');
  const serve: ServedQueues = options.sharedOnly ? 'shared' : options.hostOnly ? 'host' : 'both';
  const hostId = options.hostId ? hostIdFlag(options.hostId) : context.hostId;
  const maxCachedWorkflows = cachedWorkflowsFlag(options.maxCachedWorkflows, context.env);
  installQuietRuntime('WARN');
  const { address, client } = await context.temporal();
  const { namespace, taskQueue } = context.settings;
  if (serve !== 'shared') {
    const others = (await livePollers(client.workflowService, namespace, hostTaskQueue(taskQueue, hostId), 'activity')).filter(
      (poller) => poller.machine !== undefined && poller.machine !== hostname(),
    );
    if (others.length > 0) {
      context.report(
        `Warning: host id "${hostId}" is already served by a worker on ${[...new Set(others.map((poller) => poller.machine))].join(', ')}. ` +
          `Tools of sessions on "${hostId}" would run on either machine: give each machine its own LOOM_HOST_ID (or --host-id).`,
      );
    }
  }
  const queues = await context.ensureWorker(true, { hostId, serve, maxCachedWorkflows });
  const described = queues.map((queue) => (queue === taskQueue ? `"${queue}" (shared)` : `"${queue}" (workspace tools of host ${hostId})`));
  context.report(`Loom worker polling task queue ${described.join(' and ')} on ${address} (namespace ${namespace}). Ctrl-C stops it.`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  context.report('Stopping the worker …');
  return 0;
}

function cachedWorkflowsFlag(value: string | undefined, env: NodeJS.ProcessEnv): number | undefined {
  try {
    return value === undefined ? maxCachedWorkflowsFrom(env) : maxCachedWorkflowsFrom(env, '--max-cached-workflows', value);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

function hostIdFlag(value: string): string {
  try {
    return checkHostId(value, '--host-id');
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}
