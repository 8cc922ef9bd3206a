import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { LoomActivities } from '../activities/index.js';
import type { ModelRetry } from '../core/runs/run.js';
import { DEFAULT_HOST_WAIT_MS, hostTaskQueue } from '../core/runs/workspace.js';

/** One proxy per retry/timeout policy. */

export const storePolicy: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 30 },
};

const localStorePolicy: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 30 },
};

const remoteStore = proxyActivities<LoomActivities>(storePolicy);

/**
 * Store reads and writes take milliseconds, so they run as local activities: in the worker that
 * runs the workflow task, recorded as markers, with no round trip through the server per call.
 */
export const store = proxyLocalActivities<LoomActivities>(localStorePolicy);

/**
 * A background subagent's report to its parent: it lasts until the parent has taken it, which a
 * busy parent does at its next step (so for as long as that step's tools run); it heartbeats.
 */
export const delivery = proxyActivities<LoomActivities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Store calls made inside tool calls, which run side by side: regular activities. Local activity
 * results reach a workflow in the order they finish, which a replay need not repeat; commands a
 * tool call issues after such a result could then come in another order. Regular activity results
 * are events in history, so their order replays exactly.
 */
export const callStore = remoteStore;

/**
 * `callStore` for one call whose event the Temporal UI's timeline (its default view of a run) labels
 * with `summary`. A summary is metadata of the command, which replay does not compare.
 */
export function labelledCallStore(summary: string): typeof remoteStore {
  return proxyActivities<LoomActivities>({ ...storePolicy, summary });
}

/**
 * Where a run's workspace activities go: the task queue of the host that holds its directory.
 * `waitMs` bounds how long one waits for that host's worker (schedule-to-start).
 */
export interface Placement {
  host: string;
  waitMs?: number;
}

export function hostQueueOf(host: string): string {
  return hostTaskQueue(workflowInfo().taskQueue, host);
}

/** `options` on the placement's host queue; with no placement (tools that only touch the store), on any worker's. */
export function onHost(options: ActivityOptions, placement: Placement | undefined): ActivityOptions {
  if (!placement) return options;
  return {
    ...options,
    taskQueue: hostQueueOf(placement.host),
    scheduleToStartTimeout: placement.waitMs ?? DEFAULT_HOST_WAIT_MS,
  };
}

/** A workspace activity that no worker of its host took in time. */
export function hostWaitExpired(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof TimeoutFailure &&
    error.cause.timeoutType === 'SCHEDULE_TO_START'
  );
}

export function hostUnavailable(host: string, waitMs: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'HostUnavailable',
    message: `No worker of host ${host} took the session's work within ${Math.round(waitMs / 1000)} s: start \`loom worker\` on ${host} (or with LOOM_HOST_ID=${host}), then resume the session.`,
    nonRetryable: true,
  });
}

/** Slash-command expansion runs shell commands (up to 30 s each) in the workspace: a regular activity on its host. */
export function commandsOn(placement: Placement) {
  return proxyActivities<LoomActivities>(
    onHost({ startToCloseTimeout: '2 minutes', retry: { initialInterval: '1 second', maximumAttempts: 3 } }, placement),
  );
}

/** Whether a host's queue has a worker (for the run's details while its tools wait). */
export const hosts = proxyLocalActivities<LoomActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 2 },
});

export const NON_RETRYABLE_MODEL_FAILURES = [
  'ModelAuthError',
  'ModelQuotaExceeded',
  'ModelBadRequest',
  'ModelNotFound',
  'ContextOverflow',
  'ConfigError',
  'ModelEmptyResponse',
];

/** Streaming model calls: heartbeats every second, so cancellation and worker death show within seconds. */
function modelActivities(retry: ModelRetry, summary: string) {
  return proxyActivities<LoomActivities>({
    summary,
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '10 seconds',
    retry: {
      initialInterval: retry.initialIntervalMs,
      maximumInterval: retry.maximumIntervalMs,
      backoffCoefficient: 2,
      maximumAttempts: retry.maximumAttempts,
      nonRetryableErrorTypes: NON_RETRYABLE_MODEL_FAILURES,
    },
  });
}

/** One step's model call. */
export const modelCall = (retry: ModelRetry, summary: string) => modelActivities(retry, summary).callModel;

/** A compaction: a model call like any other, but a long one, with no tools. */
export const compactionCall = (retry: ModelRetry, summary: string) => modelActivities(retry, summary).compactSession;

/** Naming a session: cheap, and not worth retrying for long. */
export const titles = proxyActivities<LoomActivities>({
  summary: 'title',
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 2 },
});

/** Tools that only look at the world, or whose repetition is harmless, may be retried. */
export function retriedTool(summary: string, placement: Placement | undefined) {
  return proxyActivities<LoomActivities>(
    onHost(
      {
        summary,
        startToCloseTimeout: '10 minutes',
        heartbeatTimeout: '10 seconds',
        retry: { initialInterval: '1 second', maximumAttempts: 3 },
      },
      placement,
    ),
  ).runTool;
}

/**
 * Tools marked `local` (reads of local files and the store) run as local activities: a step that
 * only reads then costs one server round trip (its model call) instead of two.
 */
export function localTool(summary: string) {
  return proxyLocalActivities<LoomActivities>({
    summary,
    startToCloseTimeout: '10 minutes',
    retry: { initialInterval: '200 milliseconds', maximumAttempts: 3 },
  }).runTool;
}

/** Tools that change the world run at most once; an interrupted run is reported to the model. */
export function mutatingTool(summary: string, placement: Placement | undefined) {
  return proxyActivities<LoomActivities>(
    onHost(
      { summary, startToCloseTimeout: '30 minutes', heartbeatTimeout: '10 seconds', retry: { maximumAttempts: 1 } },
      placement,
    ),
  ).runTool;
}
