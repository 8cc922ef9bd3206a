import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerShow(program: Command): void {
  program
    .command('show')
    .description("print a session's messages and parts")
    .argument('<sessionId>')
    .option('--full', 'print tool outputs in full')
    .option('--json', 'print the session, its messages and parts as JSON')
    .action(async (sessionId: string, options) =>
      execute(async (context) => (await import('./show.js')).showCommand(context, sessionId, options)),
    );
}
