import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerCancel(program: Command): void {
  program
    .command('cancel')
    .description("cancel a session's running run, with its tools and subagents")
    .argument('<sessionId>')
    .option(
      '--terminate',
      'end the run and its busy subagents at once, without a worker (for runs of a build that is gone); running tools are not stopped',
    )
    .action(async (sessionId: string, options: { terminate?: boolean }) =>
      execute(async (context) => (await import('./cancel.js')).cancelCommand(context, sessionId, options)),
    );
}
