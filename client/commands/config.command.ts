import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerConfig(program: Command): void {
  const config = program
    .command('config')
    .description("the project's configuration: whether a change an agent made waits for you, and confirming it");

  config
    .command('status', { isDefault: true })
    .description('show whether the config files are the ones you trust, and the diff of a change that waits for you')
    .option('-d, --dir <path>', 'the project directory (default: the current directory)')
    .option('--json', 'print {directory, current, trusted, waiting} as JSON')
    .action(async (options) =>
      execute(async (context) => (await import('./config.js')).configStatusCommand(context, options)),
    );

  config
    .command('trust')
    .description('use the config files as they are now: runs take a change an agent made only once you trust it')
    .option('-d, --dir <path>', 'the project directory (default: the current directory)')
    .option('-y, --yes', 'trust without showing the change and asking')
    .action(async (options) =>
      execute(async (context) => (await import('./config.js')).configTrustCommand(context, options)),
    );
}
