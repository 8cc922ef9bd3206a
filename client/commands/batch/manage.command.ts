import type { Command } from 'commander';
import { execute } from '../execute.js';

export function registerBatchStatus(batch: Command): void {
  batch
    .command('status')
    .description("a batch's progress")
    .argument('<batchId>')
    .option('-w, --watch', 'follow it with a progress bar until it ends (Ctrl-C detaches)')
    .option('--json', 'print the progress as JSON')
    .action(async (batchId: string, options) =>
      execute(async (context) => (await import('./manage.js')).batchStatusCommand(context, batchId, options)),
    );
}

export function registerBatchResults(batch: Command): void {
  batch
    .command('results')
    .description("a batch's tasks and their outcomes (JSONL with --json)")
    .argument('<batchId>')
    .option('--json', 'one JSON object per task: index, status, sessionId, attempts, text, tokens, error')
    .action(async (batchId: string, options) =>
      execute(async (context) => (await import('./manage.js')).batchResultsCommand(context, batchId, options)),
    );
}

export function registerBatchControls(batch: Command): void {
  for (const action of ['pause', 'resume', 'cancel'] as const) {
    batch
      .command(action)
      .description(
        action === 'cancel'
          ? 'cancel a batch: running tasks are cancelled, finished results kept'
          : `${action} starting new tasks`,
      )
      .argument('<batchId>')
      .action(async (batchId: string) =>
        execute(async (context) => (await import('./manage.js')).batchControlCommand(context, batchId, { action })),
      );
  }
}

export function registerBatchConcurrency(batch: Command): void {
  batch
    .command('concurrency')
    .description('change how many tasks of a batch run at once')
    .argument('<batchId>')
    .argument('<n>')
    .action(async (batchId: string, n: string) =>
      execute(async (context) => {
        const { batchControlCommand, concurrencyControl } = await import('./manage.js');
        return batchControlCommand(context, batchId, concurrencyControl(n));
      }),
    );
}

export function registerBatchLs(batch: Command): void {
  batch
    .command('ls')
    .description('list batches, newest first')
    .option('--json', 'print the batches as JSON')
    .action(async (options) =>
      execute(async (context) => (await import('./manage.js')).batchLsCommand(context, options)),
    );
}
