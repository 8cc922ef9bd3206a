import { startWorkerProcess, stopProcess } from '../testkit/loom/worker-process.js';
import type { BenchEnv } from './harness.js';
import { globSteps } from './per-step.js';
import { residentMemory } from './proc.js';
import type { Row } from './stats.js';

export const MEMORY_SESSIONS = 200;
const AT_ONCE = 20;

/**
 * Peak RSS of a `loom worker` process (its own task queue) after 200 sessions of 3 steps ran
 * through it, 20 at a time, next to its RSS when it started polling.
 */
export async function workerMemory(bench: BenchEnv): Promise<Row[]> {
  if (process.platform !== 'linux')
    return [{ name: 'memory: worker peak RSS', unit: 'MiB', samples: [], note: 'needs /proc (Linux)' }];
  const taskQueue = `${bench.taskQueue}-memory`;
  const worker = await startWorkerProcess({ ...bench.processEnv, LOOM_TASK_QUEUE: taskQueue });
  try {
    const idle = residentMemory(worker.pid!);
    bench.model.setScript(globSteps());
    let started = 0;
    const lane = async () => {
      while (started < MEMORY_SESSIONS) {
        started++;
        const { result } = await bench.startSession('Take 3 steps.', { taskQueue });
        await result();
        bench.model.requests.length = 0;
      }
    };
    await Promise.all(Array.from({ length: AT_ONCE }, lane));
    const after = residentMemory(worker.pid!);
    return [
      { name: 'memory: worker RSS when it starts polling', unit: 'MiB', samples: [idle.rss] },
      {
        name: `memory: worker peak RSS after ${MEMORY_SESSIONS} sessions`,
        unit: 'MiB',
        samples: [after.peak],
        note: `${AT_ONCE} at a time, 3 steps each; RSS now ${after.rss.toFixed(0)} MiB`,
      },
    ];
  } finally {
    await stopProcess(worker);
  }
}
