import { setTimeout as sleep } from 'node:timers/promises';
import { startWorkerProcess, stopProcess } from '../testkit/loom/worker-process.js';
import { startBareWorkerProcess } from './bare-worker.js';
import type { BenchEnv } from './harness.js';
import { globSteps } from './per-step.js';
import { cpuMilliseconds } from './proc.js';
import { repeat, type Row } from './stats.js';
import { sequentialActivitiesWorkflow } from './workflows.js';

const SESSIONS = 5;
const STEPS = 40;
/** Left after the last result before the counters are read, for what the processes do after it. */
const SETTLE_MS = 500;

/**
 * CPU milliseconds per agent step of a `loom worker` process and of the Temporal server, from the
 * processes' own counters, beside the same per iteration of a bare workflow (one no-op activity
 * each) on a bare worker process: 5 sessions × 40 steps at once, one `glob` per step, the model
 * answering at once. The model runs in the bench's process, so neither worker's figure holds it.
 */
export async function cpuPerStep(bench: BenchEnv, runs: number): Promise<Row[]> {
  if (process.platform !== 'linux')
    return [{ name: 'cpu: worker CPU per agent step', unit: 'ms', samples: [], note: 'needs /proc (Linux)' }];
  const loomQueue = `${bench.taskQueue}-cpu`;
  const bareQueue = `${bench.taskQueue}-cpu-bare`;
  const loomWorker = await startWorkerProcess({ ...bench.processEnv, LOOM_TASK_QUEUE: loomQueue });
  const bareWorker = await startBareWorkerProcess(bench, bareQueue).catch(async (error: unknown) => {
    await stopProcess(loomWorker);
    throw error;
  });
  const server = bench.temporal.pid;
  try {
    bench.model.setScript(globSteps());
    /** CPU ms per step of `worker` and of the server while `run` takes `SESSIONS × STEPS` steps. */
    const counted = async (worker: number, run: () => Promise<unknown>) => {
      const before = { worker: cpuMilliseconds(worker), server: server ? cpuMilliseconds(server) : NaN };
      await run();
      await sleep(SETTLE_MS);
      const steps = SESSIONS * STEPS;
      return {
        worker: (cpuMilliseconds(worker) - before.worker) / steps,
        server: server ? (cpuMilliseconds(server) - before.server) / steps : NaN,
      };
    };
    const loomSessions = async () => {
      const sessions = await Promise.all(
        Array.from({ length: SESSIONS }, () => bench.startSession(`Take ${STEPS} steps.`, { taskQueue: loomQueue })),
      );
      for (const outcome of await Promise.all(sessions.map(({ result }) => result())))
        if (outcome.steps !== STEPS) throw new Error(`Expected ${STEPS} steps, a session took ${outcome.steps}`);
      bench.model.requests.length = 0;
    };
    const bareWorkflows = () =>
      Promise.all(
        Array.from({ length: SESSIONS }, (_, i) =>
          bench.client.workflow.execute(sequentialActivitiesWorkflow, {
            workflowId: `cpu-bare-${Date.now()}-${i}`,
            taskQueue: bareQueue,
            args: [STEPS],
          }),
        ),
      );
    const idle = async (worker: number) => {
      const before = cpuMilliseconds(worker);
      // Long enough that one clock tick (10 ms) is 2 ms/s.
      await sleep(5000);
      return (cpuMilliseconds(worker) - before) / 5;
    };
    const idleLoom = await idle(loomWorker.pid!);
    const idleBare = await idle(bareWorker.pid!);
    const samples = await repeat(runs, async () => {
      const loom = await counted(loomWorker.pid!, loomSessions);
      const bare = await counted(bareWorker.pid!, bareWorkflows);
      return {
        loomWorker: loom.worker,
        bareWorker: bare.worker,
        workerRatio: loom.worker / bare.worker,
        loomServer: loom.server,
        bareServer: bare.server,
        serverRatio: loom.server / bare.server,
      };
    });
    const rows: Row[] = [
      {
        name: 'cpu: worker CPU per agent step',
        unit: 'ms',
        samples: samples.loomWorker,
        note: `loom worker process; ${SESSIONS} sessions × ${STEPS} steps at once, a glob each; idle ${idleLoom.toFixed(1)} ms/s`,
      },
      {
        name: 'cpu: bare worker CPU per iteration',
        unit: 'ms',
        samples: samples.bareWorker,
        note: `one no-op activity each, ${SESSIONS} × ${STEPS} at once; idle ${idleBare.toFixed(1)} ms/s`,
      },
      { name: 'cpu: worker, agent step ÷ bare iteration', unit: '×', samples: samples.workerRatio },
    ];
    if (!server) {
      rows.push({
        name: 'cpu: Temporal server CPU per agent step',
        unit: 'ms',
        samples: [],
        note: "only the bench's own dev server's process can be read",
      });
      return rows;
    }
    return [
      ...rows,
      {
        name: 'cpu: Temporal server CPU per agent step',
        unit: 'ms',
        samples: samples.loomServer,
        note: 'the dev server process, over the same runs',
      },
      { name: 'cpu: Temporal server CPU per bare iteration', unit: 'ms', samples: samples.bareServer },
      { name: 'cpu: server, agent step ÷ bare iteration', unit: '×', samples: samples.serverRatio },
    ];
  } finally {
    await stopProcess(bareWorker);
    await stopProcess(loomWorker);
  }
}
