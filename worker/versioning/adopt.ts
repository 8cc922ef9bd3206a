import type { temporal } from '@temporalio/proto';
import { workerIdentity } from '../../activities/hosts/pollers.js';
import { changesCurrent, deleteDrainedVersions, describeDeployment, makeCurrent } from './deployments.js';
import type { WorkerVersioning } from './settings.js';
import { moveReplayableRuns, type RunsMoved } from './stranded.js';
import { refuseUnversionedRuns } from './unversioned-runs.js';

/** Where a worker's build stands in its deployment once the worker runs. */
export interface VersionAdopted {
  deploymentName: string;
  buildId: string;
  /** The build new runs go to now (none: workers without versioning). */
  current?: string;
  /** The build this worker replaced as the current one, when it did. */
  replaced?: string;
  /** Drained versions deleted on the way. */
  deleted: string[];
  /** Open runs of older builds moved onto this one (their history replays on it), and those left. */
  runs?: RunsMoved;
}

/**
 * Makes `buildId` current in its deployment (`onlyIfNone`: only a deployment's first build), then,
 * when it replaced another: moves the older builds' open runs that replay on `workflowCodePath`
 * (when given: the code of this build) and deletes builds that have drained. What `loom deploy`
 * and a starting worker both do. It refuses (`UnversionedRunsOpen`) while runs that carry no build
 * are open on `taskQueue` and the build cannot replay them.
 */
export async function deployBuild(
  service: temporal.api.workflowservice.v1.WorkflowService,
  namespace: string,
  build: { deploymentName: string; taskQueue: string; buildId: string; workflowCodePath?: string },
  options: { onlyIfNone?: boolean; deadline?: number } = {},
): Promise<VersionAdopted> {
  const { deploymentName, taskQueue, buildId, workflowCodePath } = build;
  const identity = workerIdentity();
  const outcome = await makeCurrent(
    service,
    namespace,
    { deploymentName, buildId },
    { identity, ...options, beforeChange: () => refuseUnversionedRuns(service, namespace, { taskQueue, buildId }) },
  );
  const replaced = outcome.changed ? outcome.previous : undefined;
  const runs =
    replaced && workflowCodePath
      ? await moveReplayableRuns(service, namespace, { deploymentName, buildId, workflowCodePath }, identity)
      : undefined;
  const deployment = outcome.changed ? await describeDeployment(service, namespace, deploymentName) : undefined;
  return {
    deploymentName,
    buildId,
    current: outcome.current,
    ...(replaced ? { replaced } : {}),
    deleted: deployment ? await deleteDrainedVersions(service, namespace, deployment, identity) : [],
    ...(runs ? { runs } : {}),
  };
}

/**
 * Makes a running worker's build current when its `makeCurrent` says so (`always`: unless it is
 * already; `when-none`: only a deployment's first version).
 */
export async function adoptVersion(
  service: temporal.api.workflowservice.v1.WorkflowService,
  namespace: string,
  versioning: WorkerVersioning,
  taskQueue: string,
  workflowCodePath: string,
): Promise<VersionAdopted> {
  const { deploymentName, buildId, makeCurrent: when } = versioning;
  if (when === 'never') {
    const current = (await describeDeployment(service, namespace, deploymentName))?.current;
    return { deploymentName, buildId, current, deleted: [] };
  }
  // One version at a time (`always`, the embedded dev server): the older builds' workers are most
  // likely gone with their code, so their open runs move here when this code replays them.
  return deployBuild(
    service,
    namespace,
    { deploymentName, taskQueue, buildId, ...(when === 'always' ? { workflowCodePath } : {}) },
    { onlyIfNone: when === 'when-none' },
  );
}

/**
 * Refuses, before a worker polls, a build that `adoptVersion` would make current while runs it
 * cannot replay are open (see `refuseUnversionedRuns`): a refused worker then never polled, so
 * nothing takes it for a live worker of its build. `makeCurrent` checks again when it changes the
 * current build, for runs opened in between.
 */
export async function refuseBeforePolling(
  service: temporal.api.workflowservice.v1.WorkflowService,
  namespace: string,
  versioning: WorkerVersioning,
  taskQueue: string,
): Promise<void> {
  const { deploymentName, buildId, makeCurrent: when } = versioning;
  if (when === 'never') return;
  const current = (await describeDeployment(service, namespace, deploymentName))?.current;
  if (!changesCurrent(current, buildId, when === 'when-none')) return;
  await refuseUnversionedRuns(service, namespace, { taskQueue, buildId });
}
