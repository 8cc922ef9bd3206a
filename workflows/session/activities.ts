import { patched, proxyActivities, proxyLocalActivities, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import type { LoomActivities } from '../../activities/index.js';
import type { ModelRetry } from '../../core/run.js';

/** One proxy per retry/timeout policy. */

const storePolicy: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 30 },
};

const localStorePolicy: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 30 },
};

/**
 * Store reads and writes take milliseconds, so they run as local activities: in the worker that
 * runs the workflow task, recorded as markers, with no round trip through the server per call.
 * Runs recorded before this change keep their regular activities (the patch marks which is which).
 */
export const STORE_AS_LOCAL_ACTIVITIES = 'store-as-local-activities';
const remoteStore = proxyActivities<LoomActivities>(storePolicy);
const localStore = proxyLocalActivities<LoomActivities>(localStorePolicy);

/** Writes to the session store: quick, idempotent, retried patiently. */
export const store: typeof remoteStore = new Proxy(remoteStore, {
  get: (_, name: string) => (patched(STORE_AS_LOCAL_ACTIVITIES) ? localStore : remoteStore)[name as keyof typeof remoteStore],
});

/**
 * Store calls made inside tool calls, which run side by side: regular activities. Local activity
 * results reach a workflow in the order they finish, which a replay need not repeat; commands a
 * tool call issues after such a result could then come in another order. Regular activity results
 * are events in history, so their order replays exactly.
 */
export const CALL_STORE_AS_ACTIVITIES = 'call-store-as-activities';
export const callStore: typeof remoteStore = new Proxy(remoteStore, {
  get: (_, name: string) => (patched(CALL_STORE_AS_ACTIVITIES) ? remoteStore : store)[name as keyof typeof remoteStore],
});

/** Slash-command expansion runs shell commands (up to 30 s each): a regular activity. */
export const commands = proxyActivities<LoomActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
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
export function retriedTool(summary: string) {
  return proxyActivities<LoomActivities>({
    summary,
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '1 second', maximumAttempts: 3 },
  }).runTool;
}

/**
 * Tools marked `local` (reads of local files and the store) run as local activities: a step that
 * only reads then costs one server round trip (its model call) instead of two. Runs recorded
 * before this change keep their regular activities.
 */
export const LOCAL_TOOLS = 'local-tools';
export function localTool(summary: string) {
  return proxyLocalActivities<LoomActivities>({
    summary,
    startToCloseTimeout: '10 minutes',
    retry: { initialInterval: '200 milliseconds', maximumAttempts: 3 },
  }).runTool;
}

/** Tools that change the world run at most once; an interrupted run is reported to the model. */
export function mutatingTool(summary: string) {
  return proxyActivities<LoomActivities>({
    summary,
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '10 seconds',
    retry: { maximumAttempts: 1 },
  }).runTool;
}
