import { Connection } from '@temporalio/client';
import { versioningFrom } from '../../worker/versioning/settings.js';
import { describeDeployment, type DeploymentVersion } from '../../worker/versioning/deployments.js';
import { livePollers, type LivePoller } from '../../activities/hosts/pollers.js';
import { hostTaskQueue } from '../../core/runs/workspace.js';
import { connectionOptions } from '../../worker/connection/connection-options.js';
import type { TemporalTarget } from '../../worker/connection/target.js';
import { temporalUiUrl } from '../../worker/connection/ui.js';
import { isListening } from './dev-server.js';
import { checkSearchAttributes, type SearchAttributeState } from './search-attributes.js';
import { checkTemporal } from './check.js';

/** What `loom status` says about Temporal: the settings and where they came from, then what the server answered. */
export interface TemporalStatus {
  address: string;
  namespace: string;
  embedded: boolean;
  profile?: { name: string; file: string };
  tls: boolean;
  auth: 'none' | 'api key' | 'client certificate';
  /** Setting → where it came from. Never a value of a secret. */
  sources: TemporalTarget['sources'];
  ui?: string;
  /** `running`, `not running` (the embedded server, started by the next `loom run`), or `refused` with the reason. */
  state: 'running' | 'not running' | 'refused';
  error?: string;
  serverVersion?: string;
  searchAttributes?: SearchAttributeState;
  workers?: QueueWorkers[];
  /** The task queue's worker deployment: its current build and each version's state, beside this installation's build. */
  deployment?: DeploymentStatus;
}

export type DeploymentStatus =
  | { versioning: 'off' }
  | { versioning: 'on'; name: string; thisBuild: string; current?: string; versions: DeploymentVersion[] };

export interface QueueWorkers {
  taskQueue: string;
  kind: 'workflow' | 'activity';
  pollers: LivePoller[];
}

/** Reads the target's state without changing anything: it starts no server and adds no search attribute. */
export async function temporalStatus(
  target: TemporalTarget,
  options: { env: NodeJS.ProcessEnv; taskQueue: string; hostId: string },
): Promise<TemporalStatus> {
  const status: TemporalStatus = {
    address: target.address,
    namespace: target.namespace,
    embedded: target.embedded,
    ...(target.profile ? { profile: target.profile } : {}),
    tls: Boolean(target.tls),
    auth: target.apiKey !== undefined ? 'api key' : target.tls?.clientCertPair ? 'client certificate' : 'none',
    sources: target.sources,
    ui: temporalUiUrl(target, options.env),
    state: 'running',
  };
  if (target.embedded && !(await isListening(target.address))) return { ...status, state: 'not running' };
  try {
    await checkTemporal(target);
  } catch (error) {
    return { ...status, state: 'refused', error: (error as Error).message };
  }
  const connection = await Connection.connect({ ...connectionOptions(target), connectTimeout: '10 seconds' });
  try {
    const info = await connection.workflowService.getSystemInfo({});
    status.serverVersion = info.serverVersion || undefined;
    status.searchAttributes = await checkSearchAttributes(connection, target, { add: false });
    const queues: [string, 'workflow' | 'activity'][] = [
      [options.taskQueue, 'workflow'],
      [options.taskQueue, 'activity'],
      [hostTaskQueue(options.taskQueue, options.hostId), 'activity'],
    ];
    status.deployment = await deploymentStatus(connection, target.namespace, options);
    status.workers = await Promise.all(
      queues.map(async ([taskQueue, kind]) => ({
        taskQueue,
        kind,
        pollers: await livePollers(connection.workflowService, target.namespace, taskQueue, kind),
      })),
    );
  } finally {
    await connection.close();
  }
  return status;
}

async function deploymentStatus(
  connection: Connection,
  namespace: string,
  options: { env: NodeJS.ProcessEnv; taskQueue: string },
): Promise<DeploymentStatus | undefined> {
  let versioning: ReturnType<typeof versioningFrom>;
  try {
    versioning = versioningFrom(options.env, options.taskQueue, 'never');
  } catch {
    return undefined; // A bad LOOM_WORKER_VERSIONING is said by the commands that start workers.
  }
  if (!versioning) return { versioning: 'off' };
  const found = await describeDeployment(connection.workflowService, namespace, versioning.deploymentName).catch(
    () => undefined,
  );
  return {
    versioning: 'on',
    name: versioning.deploymentName,
    thisBuild: versioning.buildId,
    ...(found?.current ? { current: found.current } : {}),
    versions: found?.versions ?? [],
  };
}
