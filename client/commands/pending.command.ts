import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerPending(program: Command): void {
  program
    .command('pending')
    .description('list permission requests waiting for an answer, in every session')
    .option('--json', 'print the requests as JSON')
    .action(async (options) =>
      execute(async (context) => (await import('./pending.js')).pendingCommand(context, options)),
    );
}
