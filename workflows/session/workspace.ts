import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { LoomActivities } from '../../activities/index.js';
import { DEFAULT_HOST_WAIT_MS } from '../../core/runs/workspace.js';
import { isNotThisHost, type NotThisHost } from '../../core/runs/workspace.js';
import { hostUnavailable, hostWaitExpired, onHost, store, storePolicy, type Placement } from '../activity-policies.js';
import { whileHostWaits } from './host-wait.js';
import type { RunState } from './run-state.js';

type WorkspaceStoreActivity = 'prepareRun' | 'saveUserMessage';

/**
 * The store activities that read the workspace (the project's config, @file references): in the
 * worker that runs the workflow when it serves the workspace's host (a local activity, no round
 * trip), else on the host's queue, where the run shows that it waits while the host has no worker.
 */
export async function onWorkspace<K extends WorkspaceStoreActivity>(
  name: K,
  input: Parameters<LoomActivities[K]>[0],
  placement: Placement,
  state: RunState,
): Promise<Exclude<Awaited<ReturnType<LoomActivities[K]>>, NotThisHost>> {
  type Result = Exclude<Awaited<ReturnType<LoomActivities[K]>>, NotThisHost>;
  type Call = (input: Parameters<LoomActivities[K]>[0]) => Promise<Result | NotThisHost>;
  const done = (result: Result | NotThisHost): Result => {
    if (isNotThisHost(result))
      throw ApplicationFailure.nonRetryable(
        `A worker of ${result.servedHost || 'no host'} took work of host ${placement.host}`,
        'WrongHost',
      );
    return result;
  };
  const pinned = { ...input, requireHost: placement.host };
  const here = await (store[name] as Call)(pinned);
  if (!isNotThisHost(here)) return here;
  try {
    const remote = (proxyActivities<LoomActivities>(onHost(storePolicy, placement))[name] as Call)(pinned);
    return done(await whileHostWaits(remote, { host: placement.host, state }));
  } catch (error) {
    if (hostWaitExpired(error)) throw hostUnavailable(placement.host, placement.waitMs ?? DEFAULT_HOST_WAIT_MS);
    throw error;
  }
}
