import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('which Temporal (and where each setting came from), its workers, the store, and the versions')
    .option('--json', 'print it as one JSON object')
    .action(async (options) =>
      execute(async (context) => (await import('./status.js')).statusCommand(context, options)),
    );
}
