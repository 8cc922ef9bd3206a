import { loadavg } from 'node:os';
import { startWorkerProcess, stopProcess } from '../testkit/loom/worker-process.js';
import { startBareWorkerProcess } from './bare-worker.js';
import type { BenchEnv } from './harness.js';
import { globSteps } from './per-step.js';
import { cpuMeter, ownCpuMilliseconds, residentMemory, workerAndServer } from './proc.js';
import type { Row } from './stats.js';
import { thinkingToolSteps, TOOL_STEPS } from './thinking-model.js';
import { thinkingActivitiesWorkflow } from './workflows.js';

export const THINK_MS = 2000;
const STEPS = TOOL_STEPS + 1;
const IDEAL_MS = STEPS * THINK_MS;
const WARM_UP_SESSIONS = 5;

/**
 * `BENCH_CONCURRENCY`: how many sessions run at once, one measurement each (50, 200 and 500 by
 * default). A bad entry is an error naming the setting.
 */
export function concurrencyLevels(value = process.env.BENCH_CONCURRENCY): number[] {
  if (value === undefined || value.trim() === '') return [50, 200, 500];
  return value.split(',').map((entry) => {
    const count = Number(entry.trim());
    if (!Number.isInteger(count) || count < 1)
      throw new Error(`BENCH_CONCURRENCY must list whole numbers of sessions, 1 or more (it has "${entry}")`);
    return count;
  });
}

/**
 * N sessions started at once as `loom run` starts them, on a `loom worker` process of their own
 * (a fresh one for each N, warmed up by a few short sessions), each `TOOL_STEPS` tool steps and an
 * answer from a model that thinks 2 s per call: the wall time from the first start to the last
 * result against the ideal (6 calls × 2 s), steps per second, and the worker's peak RSS (VmHWM),
 * with its CPU over the run. One run per N.
 */
export async function concurrency(bench: BenchEnv, levels: number[]): Promise<Row[]> {
  if (process.platform !== 'linux')
    return [{ name: 'concurrency: wall time', unit: 's', samples: [], note: 'needs /proc (Linux)' }];
  const rows: Row[] = [];
  for (const sessions of levels) {
    const taskQueue = `${bench.taskQueue}-concurrency-${sessions}`;
    const worker = await startWorkerProcess({ ...bench.processEnv, LOOM_TASK_QUEUE: taskQueue });
    const pid = worker.pid!;
    try {
      // Warm, as a worker that has been serving for a while is: its first sessions load the workflow bundle.
      bench.model.setScript(globSteps());
      await Promise.all(
        Array.from({ length: WARM_UP_SESSIONS }, async () => {
          const { result } = await bench.startSession('Take 3 steps.', { taskQueue });
          await result();
        }),
      );
      bench.model.setScript([thinkingToolSteps(THINK_MS)]);
      const idle = residentMemory(pid);
      const meter = cpuMeter({
        ...workerAndServer(pid, bench.temporal.pid),
        'bench process (model, client)': ownCpuMilliseconds,
      });
      const started = performance.now();
      const runs = await Promise.all(
        Array.from({ length: sessions }, () => bench.startSession(`Look around ${STEPS} times.`, { taskQueue })),
      );
      const outcomes = await Promise.all(runs.map(({ result }) => result()));
      const wallMs = performance.now() - started;
      const busy = meter(wallMs);
      // On a shared machine the run's figures mean little without how busy it was.
      const load = loadavg()[0].toFixed(1);
      const short = outcomes.filter((outcome) => outcome.steps !== STEPS);
      if (short.length)
        throw new Error(`${short.length} of ${sessions} sessions did not take ${STEPS} steps (${short[0].steps})`);
      bench.model.requests.length = 0;
      const { peak } = residentMemory(pid);
      const bare = await bareAtOnce(bench, sessions);
      const label = `concurrency: ${sessions} sessions at once`;
      rows.push(
        {
          name: `${label}, wall time`,
          unit: 's',
          samples: [wallMs / 1000],
          note: `ideal ${IDEAL_MS / 1000} s: ${STEPS} model calls × ${THINK_MS / 1000} s`,
        },
        {
          name: `${label}, wall ÷ ideal`,
          unit: '×',
          samples: [wallMs / IDEAL_MS],
          note: `CPU cores used: ${busy}; load average ${load} at the end`,
        },
        {
          name: `concurrency: ${sessions} bare workflows at once, wall ÷ ideal`,
          unit: '×',
          samples: [bare.wallMs / IDEAL_MS],
          note: `${STEPS} activities of ${THINK_MS / 1000} s each on a bare worker; CPU cores used: ${bare.busy}`,
        },
        {
          name: `${label}, steps per second`,
          unit: 'steps/s',
          samples: [(sessions * STEPS) / (wallMs / 1000)],
          note: `ideal ${((sessions * STEPS) / (IDEAL_MS / 1000)).toFixed(0)}`,
        },
        {
          name: `${label}, worker peak RSS`,
          unit: 'MiB',
          samples: [peak],
          note: `${idle.rss.toFixed(0)} MiB before (after ${WARM_UP_SESSIONS} warm-up sessions)`,
        },
      );
    } finally {
      await stopProcess(worker);
    }
  }
  return rows;
}

/**
 * Temporal's own floor under the same load: `sessions` bare workflows started at once, each
 * `STEPS` activities that wait `THINK_MS` (no model, no store, no tool), on a bare worker process.
 * Started together, every session's step comes due at the same moment, so each step of the run
 * waits for the whole burst to pass through the worker and the server: this is what that costs
 * when the step itself costs nothing.
 */
async function bareAtOnce(bench: BenchEnv, sessions: number): Promise<{ wallMs: number; busy: string }> {
  const taskQueue = `${bench.taskQueue}-concurrency-bare-${sessions}`;
  const worker = await startBareWorkerProcess(bench, taskQueue);
  try {
    const pid = worker.pid!;
    const meter = cpuMeter(workerAndServer(pid, bench.temporal.pid));
    const started = performance.now();
    const runs = await Promise.all(
      Array.from({ length: sessions }, (_, i) =>
        bench.client.workflow.start(thinkingActivitiesWorkflow, {
          taskQueue,
          workflowId: `bare-concurrency-${sessions}-${i}-${Date.now()}`,
          args: [STEPS, THINK_MS],
        }),
      ),
    );
    await Promise.all(runs.map((run) => run.result()));
    const wallMs = performance.now() - started;
    const busy = meter(wallMs);
    return { wallMs, busy };
  } finally {
    await stopProcess(worker);
  }
}
