import type { temporal } from '@temporalio/proto';
import { workerIdentity } from '../../activities/hosts/pollers.js';
import { deleteDrainedVersions, describeDeployment, makeCurrent } from './deployments.js';
import type { WorkerVersioning } from './settings.js';
import { moveReplayableRuns, type RunsMoved } from './stranded.js';

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
 * Makes a running worker's build current when its `makeCurrent` says so (`always`: unless it is
 * already; `when-none`: only a deployment's first version), deleting versions that have drained.
 */
export async function adoptVersion(
  service: temporal.api.workflowservice.v1.WorkflowService,
  namespace: string,
  versioning: WorkerVersioning,
  workflowCodePath: string,
): Promise<VersionAdopted> {
  const { deploymentName, buildId, makeCurrent: when } = versioning;
  const adopted: VersionAdopted = { deploymentName, buildId, deleted: [] };
  if (when === 'never')
    return { ...adopted, current: (await describeDeployment(service, namespace, deploymentName))?.current };
  const identity = workerIdentity();
  const outcome = await makeCurrent(service, namespace, versioning, { identity, onlyIfNone: when === 'when-none' });
  const deployment = outcome.changed ? await describeDeployment(service, namespace, deploymentName) : undefined;
  // One version at a time (`always`, the embedded dev server): the older builds' workers are most
  // likely gone with their code, so their open runs move here when this code replays them.
  const runs =
    when === 'always' && outcome.changed && outcome.previous
      ? await moveReplayableRuns(service, namespace, { deploymentName, buildId, workflowCodePath }, identity)
      : undefined;
  return {
    ...adopted,
    current: outcome.current,
    ...(outcome.previous ? { replaced: outcome.previous } : {}),
    deleted: deployment ? await deleteDrainedVersions(service, namespace, deployment, identity) : [],
    ...(runs ? { runs } : {}),
  };
}
