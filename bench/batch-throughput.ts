import { startBatch } from '../client/services/batches.js';
import { BENCH_MODEL, type BenchEnv } from './harness.js';
import { timed, type Measurement, type Row } from './stats.js';
import { bareBatchWorkflow } from './workflows.js';

/**
 * Loom batch throughput (tasks per second, each task a full session run with a zero-latency
 * scripted model, on the bench's store) next to bare Temporal (no-op child workflows, same
 * concurrency, same server).
 */
export function batchThroughput(bench: BenchEnv, tasks: number, concurrency: number): Measurement {
  bench.model.setScript([{ reply: { text: 'done' } }]);
  const bare = (count: number) =>
    timed(() =>
      bench.client.workflow.execute(bareBatchWorkflow, {
        workflowId: `bare-${Date.now()}`,
        taskQueue: bench.taskQueue,
        args: [count, concurrency],
      }),
    );
  const loom = (count: number) =>
    timed(async () => {
      const { handle } = await startBatch(bench.client, bench.store, {
        tasks: Array.from({ length: count }, (_, i) => ({ description: `Task ${i}`, prompt: `Task ${i}: answer.` })),
        source: 'bench.jsonl',
        sourceBytes: 0,
        directory: bench.project,
        agent: 'build',
        model: BENCH_MODEL,
        concurrency,
        retries: 0,
        taskQueue: bench.taskQueue,
        ...(bench.temporal.searchAttributes ? {} : { searchAttributes: false }),
      });
      const result = await handle.result();
      if (result.done !== count) throw new Error(`Batch finished ${result.done} of ${count} tasks`);
      bench.model.requests.length = 0;
    });
  const measure = async () => {
    const bareRate = tasks / ((await bare(tasks)) / 1000);
    const loomRate = tasks / ((await loom(tasks)) / 1000);
    return { bareRate, loomRate, ratio: loomRate / bareRate };
  };
  // A smaller batch warms both up: a full one would double the benchmark's time.
  const warmUp = async () => {
    await bare(concurrency * 2);
    await loom(concurrency * 2);
  };
  const label = `batch (${bench.storeName})`;
  const rows = (samples: Record<string, number[]>): Row[] => [
    {
      name: `${label}: Loom, ${tasks} tasks at concurrency ${concurrency}`,
      unit: 'tasks/s',
      samples: samples.loomRate,
      note: 'each task a full session run',
    },
    {
      name: `${label}: bare child workflows`,
      unit: 'tasks/s',
      samples: samples.bareRate,
      note: 'no-op children, same concurrency',
    },
    { name: `${label}: Loom ÷ bare throughput`, unit: '×', samples: samples.ratio },
  ];
  return { warmUp, measure, rows };
}
