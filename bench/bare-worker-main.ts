/**
 * A bare Temporal worker in a process of its own: the bench's workflows (bench/workflows.ts, bundled
 * by the bench, at `BENCH_WORKFLOW_CODE`) and a no-op activity, none of Loom's activities. The
 * `cpu` benchmark reads its CPU counters beside a `loom worker`'s. Connects as `loom worker` does,
 * to the server the `TEMPORAL_*` settings name, and polls `LOOM_TASK_QUEUE`; SIGTERM stops it.
 */
import { Worker } from '@temporalio/worker';
import { installQuietRuntime } from '../worker/runtime.js';
import { connectWorker } from '../worker/connection/connect-worker.js';
import { resolveTemporalTarget } from '../worker/connection/target.js';
import { benchActivities } from './bench-activities.js';

const taskQueue = process.env.LOOM_TASK_QUEUE;
const codePath = process.env.BENCH_WORKFLOW_CODE;
if (!taskQueue || !codePath) throw new Error('bench/bare-worker-main.ts needs LOOM_TASK_QUEUE and BENCH_WORKFLOW_CODE');
installQuietRuntime('ERROR');
const target = resolveTemporalTarget(process.env);
const connection = await connectWorker(target);
const worker = await Worker.create({
  connection,
  namespace: target.namespace,
  taskQueue,
  workflowBundle: { codePath },
  activities: benchActivities,
  // As many at once as Loom's worker runs (worker/create-worker.ts), so the two compare at any concurrency.
  maxConcurrentActivityTaskExecutions: 1_000,
  maxHeartbeatThrottleInterval: '1 second',
});
process.once('SIGTERM', () => worker.shutdown());
console.error(`bare worker polling task queue ${taskQueue}`);
try {
  await worker.run();
} finally {
  await connection.close();
}
