import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerLs(program: Command): void {
  program
    .command('ls')
    .description("list this project folder's sessions, most recent first")
    .option('--all', 'include child sessions')
    .option('--all-projects', 'list the sessions of every project folder, with a directory column')
    .option('-d, --dir <path>', 'the project directory (default: the current directory)')
    .option('-n, --limit <count>', 'how many to list', '50')
    .option('--json', 'print the sessions as JSON')
    .action(async (options) => execute(async (context) => (await import('./ls.js')).lsCommand(context, options)));
}
