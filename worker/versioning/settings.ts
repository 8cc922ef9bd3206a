import { LOOM_VERSION } from '../../activities/process/package-root.js';
import { workflowCodeDigest } from '../bundle.js';

/**
 * When a worker makes its own build the deployment's current version, to which new runs go:
 * `always` (the embedded dev server: one version at a time, the newest code), `when-none` (a
 * deployment's first version; later ones wait for `loom deploy`), or `never`.
 */
export type MakeCurrent = 'always' | 'when-none' | 'never';

/** A worker's place in Temporal's worker deployments: its runs are pinned to its build. */
export interface WorkerVersioning {
  deploymentName: string;
  buildId: string;
  makeCurrent: MakeCurrent;
}

/**
 * This build's id: Loom's version and a digest of its workflow code, so that code whose runs
 * would replay differently is another build, and the same code on every machine is one.
 */
export function loomBuildId(): string {
  return `${LOOM_VERSION}+${workflowCodeDigest().slice(0, 12)}`;
}

/**
 * The versioning of a worker on `taskQueue`: its deployment is named after the queue
 * (`LOOM_DEPLOYMENT_NAME` names another), and `LOOM_WORKER_VERSIONING=off` turns it off (workers
 * then take any run, as before Loom used deployments).
 */
export function versioningFrom(
  env: NodeJS.ProcessEnv,
  taskQueue: string,
  makeCurrent: MakeCurrent,
): WorkerVersioning | undefined {
  const setting = env.LOOM_WORKER_VERSIONING?.trim().toLowerCase() ?? '';
  if (setting === 'off') return undefined;
  if (setting !== '' && setting !== 'on')
    throw new Error(`LOOM_WORKER_VERSIONING must be "on" or "off" (it is "${env.LOOM_WORKER_VERSIONING}")`);
  const deploymentName = env.LOOM_DEPLOYMENT_NAME?.trim() || taskQueue;
  return { deploymentName, buildId: loomBuildId(), makeCurrent };
}
