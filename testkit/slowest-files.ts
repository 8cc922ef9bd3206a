import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** How many files the summary names. */
const COUNT = 10;

/** The time a file held a test process: its import, set-up, tests and hooks, in ms. */
function fileTime(module: TestModule): number {
  const d = module.diagnostic();
  return d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
}

/**
 * Prints the ten slowest test files after vitest's own summary, with their share of the time all
 * files took: where a faster `npm test` has to start looking.
 */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (modules.length === 0) return;
    const timed = modules.map((module) => ({ module, ms: fileTime(module) })).sort((a, b) => b.ms - a.ms);
    const total = timed.reduce((sum, { ms }) => sum + ms, 0);
    const lines = timed.slice(0, COUNT).map(({ module, ms }) => {
      const share = total > 0 ? Math.round((100 * ms) / total) : 0;
      const name = relative(process.cwd(), module.moduleId);
      const project = module.project.name ? ` [${module.project.name}]` : '';
      return `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${String(share).padStart(2)}%  ${name}${project}`;
    });
    const heading = `Slowest ${lines.length} of ${modules.length} files (${(total / 1000).toFixed(0)} s in all files):`;
    process.stdout.write(`\n${heading}\n${lines.join('\n')}\n`);
  }
}
