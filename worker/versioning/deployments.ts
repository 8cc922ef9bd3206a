import { optionalTsToDate } from '@temporalio/common/lib/time.js';
import type { temporal } from '@temporalio/proto';
import { enums } from '../../activities/hosts/proto-enums.js';
import { describeCause, grpcStatus } from '../connection/error-details.js';

type WorkflowService = temporal.api.workflowservice.v1.WorkflowService;

const NOT_FOUND = 5;
const FAILED_PRECONDITION = 9;

/** A version's state: `draining` while runs pinned to it may still be open, `drained` once none are. */
export type VersionStatus = 'inactive' | 'current' | 'ramping' | 'draining' | 'drained' | 'created' | 'unknown';

export interface DeploymentVersion {
  buildId: string;
  status: VersionStatus;
  createdAt?: Date;
  /** When its drainage status last changed (for `draining` and `drained`). */
  drainageSince?: Date;
}

export interface Deployment {
  name: string;
  /** The build new runs go to; none: they go to workers that use no versioning. */
  current?: string;
  versions: DeploymentVersion[];
  conflictToken?: Uint8Array;
}

/** A worker deployment as Temporal has it; undefined when no versioned worker has polled for it yet. */
export async function describeDeployment(
  service: WorkflowService,
  namespace: string,
  name: string,
): Promise<Deployment | undefined> {
  try {
    const described = await service.describeWorkerDeployment({ namespace, deploymentName: name });
    const info = described.workerDeploymentInfo;
    return {
      name,
      current: info?.routingConfig?.currentDeploymentVersion?.buildId || undefined,
      conflictToken: described.conflictToken ?? undefined,
      versions: (info?.versionSummaries ?? []).map((summary) => ({
        buildId: summary.deploymentVersion?.buildId ?? '',
        status: versionStatus(summary.status),
        createdAt: optionalTsToDate(summary.createTime),
        drainageSince: optionalTsToDate(summary.drainageInfo?.lastChangedTime),
      })),
    };
  } catch (error) {
    if (grpcStatus(error)?.code === NOT_FOUND) return undefined;
    throw error;
  }
}

function versionStatus(status: number | null | undefined): VersionStatus {
  const name = enums.WorkerDeploymentVersionStatus[status ?? 0] as string | undefined;
  const short = name?.replace('WORKER_DEPLOYMENT_VERSION_STATUS_', '').toLowerCase();
  return short && ['inactive', 'current', 'ramping', 'draining', 'drained', 'created'].includes(short)
    ? (short as VersionStatus)
    : 'unknown';
}

/** Whether making `buildId` current would change the deployment's current build (`onlyIfNone`: only a first one). */
export function changesCurrent(current: string | undefined, buildId: string, onlyIfNone = false): boolean {
  return current !== buildId && !(current && onlyIfNone);
}

/** What `makeCurrent` found and did: the build current now, the one before, whether it changed it. */
export interface CurrentVersion {
  current?: string;
  previous?: string;
  changed: boolean;
}

/**
 * Makes `buildId` the current version of its deployment: new runs go to it; runs pinned to the
 * version before finish there. `onlyIfNone`: only when no version is current yet (another build's
 * worker may have made itself current first). A version is known to Temporal only once one of its
 * workers polled, so until `deadline` an unknown build is waited for. `beforeChange` runs once
 * before it changes anything, and may refuse by throwing.
 */
export async function makeCurrent(
  service: WorkflowService,
  namespace: string,
  version: { deploymentName: string; buildId: string },
  options: { identity: string; onlyIfNone?: boolean; deadline?: number; beforeChange?: () => Promise<void> },
): Promise<CurrentVersion> {
  const deadline = options.deadline ?? Date.now() + 15_000;
  let checked = false;
  for (;;) {
    const before = await describeDeployment(service, namespace, version.deploymentName);
    const current = before?.current;
    if (!changesCurrent(current, version.buildId, options.onlyIfNone)) return { current, changed: false };
    if (!checked) await options.beforeChange?.();
    checked = true;
    try {
      await service.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        identity: options.identity,
        ...(before?.conflictToken ? { conflictToken: before.conflictToken } : {}),
      });
      return { current: version.buildId, previous: current, changed: true };
    } catch (error) {
      const status = grpcStatus(error);
      // Not known yet (its worker has only just started polling), not yet polled on every task queue
      // of the current version (a worker's workflow and activity pollers register one by one), or
      // changed by another worker meanwhile.
      const waitable =
        status?.code === NOT_FOUND ||
        (status?.code === FAILED_PRECONDITION &&
          /conflict token|missing active task queues/i.test(describeCause(error)));
      if (!waitable || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/**
 * Deletes the deployment's drained versions, which no run needs any more, so that a deployment
 * stays under Temporal's 100 versions however often the code changes. A version whose workers
 * polled in the last minutes is kept by Temporal; that is not an error here. Returns those deleted.
 */
export async function deleteDrainedVersions(
  service: WorkflowService,
  namespace: string,
  deployment: Deployment,
  identity: string,
): Promise<string[]> {
  const deleted: string[] = [];
  for (const version of deployment.versions.filter((candidate) => candidate.status === 'drained')) {
    try {
      await service.deleteWorkerDeploymentVersion({
        namespace,
        deploymentVersion: { deploymentName: deployment.name, buildId: version.buildId },
        identity,
      });
      deleted.push(version.buildId);
    } catch {
      // Still polled recently, or deleted by another worker: the next deployment tries again.
    }
  }
  return deleted;
}
