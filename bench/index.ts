import { batchThroughput, type Measurement } from './batch-throughput.js';
import { createBenchEnv } from './harness.js';

/**
 * `npm run bench`: measurements taken side by side in one run, reported as values and ratios
 * (never as pass/fail thresholds: machines differ).
 */
const bench = await createBenchEnv();
const results: Measurement[] = [];
try {
  results.push(...(await batchThroughput(bench, Number(process.env.BENCH_TASKS ?? 300), Number(process.env.BENCH_CONCURRENCY ?? 20))));
} finally {
  await bench.close();
}
const width = Math.max(...results.map((r) => r.name.length));
for (const result of results) {
  const value = result.unit === 'ratio' ? result.value.toFixed(2) : result.value.toFixed(1);
  console.log(`${result.name.padEnd(width)}  ${value.padStart(8)} ${result.unit}${result.note ? `  (${result.note})` : ''}`);
}
