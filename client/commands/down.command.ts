import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerDown(program: Command): void {
  program
    .command('down')
    .description('stop the background Temporal dev server')
    .action(async () => execute(async (context) => (await import('./down.js')).downCommand(context)));
}
