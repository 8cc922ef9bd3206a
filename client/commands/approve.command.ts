import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerApprove(program: Command): void {
  program
    .command('approve')
    .description('answer a permission request: allow once (default), always, or reject')
    .argument('<requestId>', 'the request (per_…), from `loom pending` or the run that asked')
    .option('--always', 'allow it, and the same kind of call, for the rest of the session tree')
    .option('--reject', 'refuse it; without --message the turn stops')
    .option('--message <feedback>', 'with --reject: tell the agent why; it carries on with that')
    .action(async (requestId: string, options) =>
      execute(async (context) => (await import('./approve.js')).approveCommand(context, requestId, options)),
    );
}
