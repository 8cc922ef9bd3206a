import { join } from 'node:path';
import { PROJECT_ROOT } from '../worker/bundle.js';
import { batchThroughput } from './batch-throughput.js';
import { fanOut } from './fan-out.js';
import { createBenchEnv, type BenchEnv } from './harness.js';
import { historyPerStep } from './history-per-step.js';
import { perStep } from './per-step.js';
import { describeMachine, table, writeResults } from './report.js';
import { resumeLatency } from './resume-latency.js';
import type { Row } from './stats.js';
import { workerMemory } from './worker-memory.js';

/**
 * `npm run bench`: every benchmark side by side on one dev server, each measured `BENCH_RUNS`
 * times after a warm-up; prints a table and writes bench/results.json. Never part of `npm test`:
 * timings are compared with each other, not asserted.
 */
const runs = Number(process.env.BENCH_RUNS ?? 3);
const batchTasks = Number(process.env.BENCH_BATCH_TASKS ?? 1000);
const batchConcurrency = Number(process.env.BENCH_BATCH_CONCURRENCY ?? 50);
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());

const benchmarks: [string, (bench: BenchEnv) => Promise<Row[]>][] = [
  ['step', (bench) => perStep(bench, runs)],
  ['history', (bench) => historyPerStep(bench)],
  ['fan-out', (bench) => fanOut(bench, runs)],
  ['resume', (bench) => resumeLatency(bench, runs)],
  ['batch', (bench) => batchThroughput(bench, Math.min(runs, 2), batchTasks, batchConcurrency)],
  ['memory', (bench) => workerMemory(bench)],
];
const unknown = only?.filter((name) => !benchmarks.some(([known]) => known === name));
if (unknown?.length) {
  console.error(`BENCH_ONLY names unknown benchmarks: ${unknown.join(', ')} (known: ${benchmarks.map(([name]) => name).join(', ')})`);
  process.exit(2);
}

console.log(Object.entries(describeMachine()).map(([key, value]) => `${key}: ${value}`).join('\n'));
const bench = await createBenchEnv();
const rows: Row[] = [];
const skipped: string[] = [];
try {
  for (const [name, run] of benchmarks) {
    if (only && !only.includes(name)) {
      skipped.push(name);
      continue;
    }
    const started = performance.now();
    process.stdout.write(`${name}… `);
    rows.push(...(await run(bench)));
    console.log(`${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
} finally {
  await bench.close();
}
const path = join(PROJECT_ROOT, 'bench', 'results.json');
const summaries = writeResults(path, rows, { runs, batchTasks, batchConcurrency }, skipped);
console.log(`\n${table(summaries)}\n\nRuns: ${runs} after a warm-up (batch: ${Math.min(runs, 2)}). Written to ${path}.`);
