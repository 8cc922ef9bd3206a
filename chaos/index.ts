// `npm run chaos`: the fault suite. Knobs: the CHAOS_* variables in options.ts.
import { closeOpenClusters } from './cluster.js';
import { optionsFromEnv } from './options.js';
import { formatReport } from './report.js';
import { runChaos } from './run.js';

const options = optionsFromEnv(process.env);
const started = Date.now();
const log = (line: string) => {
  if (options.verbose) process.stderr.write(`[chaos ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
};
// The dev server runs detached and PostgreSQL outlives a killed parent: stop them on Ctrl-C.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`chaos: ${signal}, stopping the servers and workers\n`);
    void closeOpenClusters().finally(() => process.exit(130));
  });
}
const report = await runChaos(options, log);
process.stdout.write(`${formatReport(report)}\n`);
process.exit(report.ok ? 0 : 1);
