import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerAgents(program: Command): void {
  program
    .command('agents')
    .description("list the project's agents: mode, model, description and permissions")
    .option('--all', 'include hidden agents')
    .option('-d, --dir <path>', 'the project directory (default: the current directory)')
    .option('--json', 'print the agents as JSON')
    .action(async (options) =>
      execute(async (context) => (await import('./agents.js')).agentsCommand(context, options)),
    );
}
