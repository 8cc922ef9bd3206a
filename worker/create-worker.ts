import { NativeConnection, Worker } from '@temporalio/worker';
import { hostname } from 'node:os';
import { createActivities } from '../activities/index.js';
import { dataDir } from '../activities/paths.js';
import type { SessionStore } from '../activities/store/store.js';
import { workflowBundlePath } from './bundle.js';

export interface LoomWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  store: SessionStore;
  env?: NodeJS.ProcessEnv;
  /** Cached workflows; lower it to force replays in tests. */
  maxCachedWorkflows?: number;
}

/** A worker that runs Loom's workflows and activities on one task queue. */
export async function createLoomWorker(options: LoomWorkerOptions): Promise<Worker> {
  const env = options.env ?? process.env;
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    identity: `loom@${hostname()}:${process.pid}`,
    workflowBundle: { codePath: await workflowBundlePath() },
    activities: createActivities({ store: options.store, env, dataDir: dataDir(env) }),
    maxCachedWorkflows: options.maxCachedWorkflows,
    // Give running activities a moment to record their state when the worker stops.
    shutdownGraceTime: '3 seconds',
    // Cancellation reaches an activity only on a heartbeat's reply: send them often enough that
    // a cancelled command stops within a second or two.
    maxHeartbeatThrottleInterval: '1 second',
  });
}
