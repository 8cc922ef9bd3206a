import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description(
      "run a worker until stopped: the shared task queue and this host's workspace tools (start several to scale out)",
    )
    .option('--host-id <id>', "this machine's host id (default: LOOM_HOST_ID, else the machine's name)")
    .option(
      '--shared-only',
      'serve only the shared queue: workflows and model calls, no workspace tools (a machine without checkouts)',
    )
    .option('--host-only', "serve only this host's workspace tools")
    .option(
      '--max-cached-workflows <n>',
      'runs kept in memory between their tasks (default: LOOM_MAX_CACHED_WORKFLOWS, else sized from the heap); fewer use less memory and replay more',
    )
    .option(
      '--metrics-port <[host:]port>',
      "serve Prometheus metrics at /metrics on this port: Temporal's and Loom's (default: LOOM_METRICS_PORT; off when unset)",
    )
    .option(
      '--make-current',
      "make this worker's build the current version once it polls, as `loom deploy` does (the embedded dev server always does)",
    )
    .action(async (options) =>
      execute(async (context) => (await import('./worker.js')).workerCommand(context, options)),
    );
}
