import { startBatch } from '../client/batches.js';
import type { BenchEnv } from './harness.js';
import { bareBatchWorkflow } from './workflows.js';

export interface Measurement {
  name: string;
  value: number;
  unit: string;
  note?: string;
}

/**
 * Loom batch throughput (tasks per second, each task a full session run with a zero-latency
 * scripted model) next to bare Temporal (no-op child workflows, same concurrency, same server).
 */
export async function batchThroughput(bench: BenchEnv, tasks = 300, concurrency = 20): Promise<Measurement[]> {
  const bareStart = performance.now();
  await bench.env.client.workflow.execute(bareBatchWorkflow, {
    workflowId: `bare-${Date.now()}`,
    taskQueue: bench.taskQueue,
    args: [tasks, concurrency],
  });
  const bareRate = tasks / ((performance.now() - bareStart) / 1000);

  const loomStart = performance.now();
  const { handle } = await startBatch(bench.env.client, bench.store, {
    tasks: Array.from({ length: tasks }, (_, i) => ({ description: `Task ${i}`, prompt: `Task ${i}: answer.` })),
    source: 'bench.jsonl',
    sourceBytes: 0,
    directory: bench.project,
    agent: 'build',
    model: 'scripted/bench',
    concurrency,
    retries: 0,
    taskQueue: bench.taskQueue,
  });
  const result = await handle.result();
  if (result.done !== tasks) throw new Error(`Batch finished ${result.done} of ${tasks} tasks`);
  const loomRate = tasks / ((performance.now() - loomStart) / 1000);

  return [
    { name: 'batch: bare Temporal child workflows', value: bareRate, unit: 'tasks/s', note: `${tasks} no-op children, concurrency ${concurrency}` },
    { name: 'batch: Loom tasks (full session runs)', value: loomRate, unit: 'tasks/s', note: `${tasks} sessions, zero-latency scripted model` },
    { name: 'batch: Loom / bare throughput', value: loomRate / bareRate, unit: 'ratio' },
  ];
}
