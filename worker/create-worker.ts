import { NativeConnection, Worker, type State } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import { localHostId } from '../activities/hosts/host-id.js';
import { workerIdentity } from '../activities/hosts/pollers.js';
import { dataDir } from '../activities/process/paths.js';
import { followPluginEvents } from '../activities/plugins/events.js';
import type { SessionStore } from '../activities/store/store.js';
import { hostTaskQueue } from '../core/runs/workspace.js';
import { workflowBundlePath } from './bundle.js';
import { tracingWanted } from './tracing/wanted.js';
import type { WorkerVersioning } from './versioning/settings.js';
import { adoptVersion, type VersionAdopted } from './versioning/adopt.js';

/** Which queues a worker serves: the shared one (workflows, model calls), its host's (workspace tools), or both. */
export type ServedQueues = 'both' | 'shared' | 'host';

export interface LoomWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  /** The shared task queue; the host's queue is named after it (`<queue>@<host>`). */
  taskQueue: string;
  store: SessionStore;
  env?: NodeJS.ProcessEnv;
  /** This machine's host id (default: `LOOM_HOST_ID`, else the machine's name). */
  hostId?: string;
  serve?: ServedQueues;
  /** Cached workflows; lower it to force replays in tests. */
  maxCachedWorkflows?: number;
  /** Activities (model calls) run at once from the shared queue (default: `LOOM_MAX_CONCURRENT_ACTIVITIES`). */
  maxConcurrentActivityTaskExecutions?: number;
  /**
   * The shared queue's worker deployment (worker/versioning/): runs are pinned to this build.
   * Unset: an unversioned worker, which takes any run.
   */
  versioning?: WorkerVersioning;
  /** The workflow bundle to run instead of Loom's own (tests of an upgrade run a changed one). */
  workflowCodePath?: string;
}

/** Loom's worker: one Temporal worker per queue it serves, started and stopped together. */
export interface LoomWorker {
  readonly hostId: string;
  /** The task queues polled, shared first. */
  readonly queues: string[];
  run(): Promise<void>;
  /**
   * Once running: the build's place in its deployment, after the worker made it current if its
   * `makeCurrent` says so. Undefined for an unversioned worker, or one that serves no shared queue.
   */
  versionAdopted(): Promise<VersionAdopted | undefined>;
  shutdown(): void;
  getState(): State;
}

/**
 * A worker for Loom's shared task queue (workflows and every activity) and for its host's queue
 * (the activities that touch this machine's workspaces).
 */
export async function createLoomWorker(options: LoomWorkerOptions): Promise<LoomWorker> {
  const env = options.env ?? process.env;
  const hostId = options.hostId ?? localHostId(env);
  const serve = options.serve ?? 'both';
  const servesHost = serve !== 'shared';
  const activities = createActivities({
    store: options.store,
    env,
    dataDir: dataDir(env),
    hostId: servesHost ? hostId : undefined,
  });
  const tracing = tracingWanted(env) ? (await import('./tracing/setup.js')).startTracing(env) : undefined;
  const traced = tracing ? (await import('./tracing/worker-options.js')).tracedWorkerOptions(tracing) : {};
  const common = {
    ...traced,
    connection: options.connection,
    namespace: options.namespace,
    identity: workerIdentity(),
    activities,
    // Give running activities a moment to record their state when the worker stops.
    shutdownGraceTime: '3 seconds',
    // Cancellation reaches an activity only on a heartbeat's reply: send them often enough that
    // a cancelled command stops within a second or two.
    maxHeartbeatThrottleInterval: '1 second',
  } as const;
  const workers: Worker[] = [];
  const queues: string[] = [];
  const workflowCodePath = options.workflowCodePath ?? (await workflowBundlePath(tracing ? 'traced' : 'plain'));
  if (serve !== 'host') {
    queues.push(options.taskQueue);
    workers.push(
      await Worker.create({
        ...common,
        taskQueue: options.taskQueue,
        workflowBundle: { codePath: workflowCodePath },
        ...(options.versioning
          ? {
              workerDeploymentOptions: {
                version: { deploymentName: options.versioning.deploymentName, buildId: options.versioning.buildId },
                useWorkerVersioning: true,
                // Set for the worker, never on a workflow type: a type that declares a behaviour
                // cannot run on an unversioned worker, and tests and `LOOM_WORKER_VERSIONING=off` run those.
                defaultVersioningBehavior: 'PINNED' as const,
              },
            }
          : {}),
        maxCachedWorkflows: options.maxCachedWorkflows ?? maxCachedWorkflowsFrom(env),
        maxConcurrentActivityTaskExecutions:
          options.maxConcurrentActivityTaskExecutions ?? maxConcurrentActivitiesFrom(env),
      }),
    );
  }
  if (servesHost) {
    queues.push(hostTaskQueue(options.taskQueue, hostId));
    // Unversioned: a host's tools serve runs pinned to any build, so that a run on an older build
    // still reaches the workspace while this host runs a newer one (docs/compatibility.md).
    workers.push(await Worker.create({ ...common, taskQueue: queues[queues.length - 1] }));
  }
  let adopted: Promise<VersionAdopted | undefined> | undefined;
  const versionAdopted = () => {
    // A version is known to Temporal once its worker polls: adopted after run() started.
    adopted ??=
      options.versioning && serve !== 'host'
        ? adoptVersion(
            options.connection.workflowService,
            options.namespace,
            options.versioning,
            options.taskQueue,
            workflowCodePath,
          )
        : Promise.resolve(undefined);
    return adopted;
  };
  return {
    hostId,
    queues,
    versionAdopted,
    async run() {
      // Plugins' `event` hooks, for the workspaces of this host, while the worker runs.
      const events = servesHost ? followPluginEvents({ store: options.store, env, hostId }) : undefined;
      // Whoever started the worker hears how adoption went from versionAdopted(); started here in any case.
      versionAdopted().catch(() => undefined);
      try {
        // One stopping (a fatal error) stops the others: a half-serving worker would strand work.
        await Promise.all(
          workers.map((worker) =>
            worker.run().catch((error: unknown) => {
              for (const other of workers) if (other.getState() === 'RUNNING') other.shutdown();
              throw error;
            }),
          ),
        );
      } finally {
        await events?.stop();
      }
    },
    shutdown() {
      for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    },
    getState() {
      const states = workers.map((worker) => worker.getState());
      return states.find((state) => state !== 'STOPPED') ?? 'STOPPED';
    },
  };
}

/**
 * `LOOM_MAX_CACHED_WORKFLOWS`: how many runs a worker keeps in memory between their tasks. Fewer
 * use less memory; a run that fell out of the cache is replayed from its history at its next task.
 * Unset: the SDK's default, from the heap's size.
 */
export function maxCachedWorkflowsFrom(
  env: NodeJS.ProcessEnv,
  source = 'LOOM_MAX_CACHED_WORKFLOWS',
  value = env.LOOM_MAX_CACHED_WORKFLOWS,
): number | undefined {
  return wholeNumberSetting(source, value, 0, 'runs');
}

/**
 * A model call is an activity that holds its slot for the whole answer, seconds of waiting on the
 * provider: Temporal's default of 100 slots would cap a worker at 100 sessions thinking at once,
 * 50 model calls a second at 2 s each, whatever its CPU. The slots cost little while they wait.
 */
export const DEFAULT_MAX_CONCURRENT_ACTIVITIES = 1_000;

/** `LOOM_MAX_CONCURRENT_ACTIVITIES`: model calls (and other shared-queue activities) a worker runs at once. */
export function maxConcurrentActivitiesFrom(env: NodeJS.ProcessEnv): number {
  return (
    wholeNumberSetting('LOOM_MAX_CONCURRENT_ACTIVITIES', env.LOOM_MAX_CONCURRENT_ACTIVITIES, 1, 'activities') ??
    DEFAULT_MAX_CONCURRENT_ACTIVITIES
  );
}

/** A count from a flag or variable (`source` names it in the error); undefined when unset or blank. */
function wholeNumberSetting(
  source: string,
  value: string | undefined,
  least: number,
  unit: string,
): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count < least)
    throw new Error(`${source} must be a whole number of ${unit}, ${least} or more (it is "${value}")`);
  return count;
}
