import { Runtime } from '@temporalio/worker';
import type { BatchRecords } from '../../activities/store/batches.js';

const EVERY_MS = 5_000;

/**
 * Gauges of what is under way across the deployment, read from the store (so every worker reports
 * the same numbers, whichever runs the work): permission requests waiting for a person, busy
 * subagents, and the tasks of running batches by state. Returns a function that stops them.
 */
export function reportLiveCounts(store: BatchRecords, everyMs = EVERY_MS): () => void {
  const meter = Runtime.instance().metricMeter;
  const waiting = meter.createGauge(
    'loom_permission_requests_waiting',
    'int',
    'requests',
    'Permission requests waiting for a person',
  );
  const subagents = meter.createGauge(
    'loom_subagents_running',
    'int',
    'sessions',
    'Subagent sessions whose run is busy',
  );
  const batchTasks = meter.createGauge('loom_batch_tasks', 'int', 'tasks', 'Tasks of running batches, by state');
  const update = async () => {
    try {
      const counts = await store.liveCounts();
      waiting.set(counts.permissionsWaiting);
      subagents.set(counts.subagentsRunning);
      for (const [state, count] of Object.entries(counts.batchTasks)) batchTasks.set(count, { state });
    } catch {
      // A store out of reach for a moment: the gauges keep their last values until the next look.
    }
  };
  void update();
  const timer = setInterval(() => void update(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
