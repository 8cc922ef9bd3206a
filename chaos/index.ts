// `npm run chaos`: the fault suite. Knobs: the CHAOS_* variables in options.ts. Temporal: the
// server the TEMPORAL_* settings or a profile name, as for every Loom process (then the Temporal
// restart is skipped); when nothing names one, a dev server of the run's own.
import { exitWhenWritten } from '../client/process-output.js';
import { InputError } from '../client/input-error.js';
import { TemporalConfigError } from '../worker/connection/errors.js';
import { resolveTemporalTarget } from '../worker/connection/target.js';
import { closeOpenClusters } from './cluster.js';
import { optionsFromEnv } from './options.js';
import { formatReport } from './report.js';
import { runChaos } from './run.js';

const options = optionsFromEnv(process.env);
const started = Date.now();
const log = (line: string) => {
  if (options.verbose)
    process.stderr.write(`[chaos ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
};
// The own dev server runs detached and PostgreSQL outlives a killed parent: stop them on Ctrl-C.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`chaos: ${signal}, stopping the servers and workers\n`);
    void closeOpenClusters().finally(() => process.exit(130));
  });
}
try {
  const target = resolveTemporalTarget(process.env);
  for (const warning of target.warnings) process.stderr.write(`chaos: warning: ${warning}\n`);
  const report = await runChaos(options, log, target.embedded ? undefined : target);
  process.stdout.write(`${formatReport(report)}\n`);
  await exitWhenWritten(report.ok ? 0 : 1);
} catch (error) {
  // A Temporal setting that is wrong, or that the named server refuses: the message names it.
  if (!(error instanceof TemporalConfigError || error instanceof InputError)) throw error;
  process.stderr.write(`chaos: ${error.message}\n`);
  await exitWhenWritten(2);
}
