import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../activities/process/package-root.js';
import type { BenchEnv } from './harness.js';
import { repeat, type Row } from './stats.js';

const SOURCES = join(PACKAGE_ROOT, 'client', 'loom.js');
const BUILT = join(PACKAGE_ROOT, 'dist', 'client', 'main.js');

/** Wall time of one `loom …` process, start to exit. */
function timeLoom(entry: string, args: string[], bench: BenchEnv): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], {
      env: bench.processEnv,
      cwd: bench.project,
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`loom ${args.join(' ')} exited with ${code}`)),
    );
  });
}

/**
 * CLI start-up: `loom --help` (nothing but the CLI itself) and `loom ls` (the store opened and read)
 * from the build (`npm run build`, made here first) next to the TypeScript sources through tsx.
 */
export async function cliStartup(bench: BenchEnv, runs: number): Promise<Row[]> {
  execFileSync('npm', ['run', 'build'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const samples = await repeat(runs, async () => {
    const help = await timeLoom(BUILT, ['--help'], bench);
    const ls = await timeLoom(BUILT, ['ls'], bench);
    const helpSources = await timeLoom(SOURCES, ['--help'], bench);
    const lsSources = await timeLoom(SOURCES, ['ls'], bench);
    return { help, ls, helpSources, lsSources, helpRatio: helpSources / help, lsRatio: lsSources / ls };
  });
  return [
    {
      name: 'CLI start-up: `loom --help`, built',
      unit: 'ms',
      samples: samples.help,
      note: 'dist/ from `npm run build`',
    },
    { name: 'CLI start-up: `loom ls`, built', unit: 'ms', samples: samples.ls },
    { name: 'CLI start-up: `loom --help`, sources (tsx)', unit: 'ms', samples: samples.helpSources },
    { name: 'CLI start-up: `loom ls`, sources (tsx)', unit: 'ms', samples: samples.lsSources },
    { name: 'CLI start-up: sources ÷ built, --help', unit: '×', samples: samples.helpRatio },
    { name: 'CLI start-up: sources ÷ built, ls', unit: '×', samples: samples.lsRatio },
  ];
}
