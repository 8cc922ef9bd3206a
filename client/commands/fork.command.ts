import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerFork(program: Command): void {
  program
    .command('fork')
    .description(
      "start a new session from a session's history before a message, optionally with the files of that moment",
    )
    .argument('<sessionId>')
    .argument(
      '[turn|messageId]',
      'the fork keeps the messages before this turn or message, as `loom show` prints them (default: all)',
    )
    .option(
      '--dir <path>',
      'write the files as they were at that point into this new folder (a git worktree on a new branch in a git project) and work there',
    )
    .option('--json', 'print {sessionId, directory}')
    .addHelpText(
      'after',
      '\nExamples:\n  loom fork ses_…\n  loom fork ses_… 2 --dir ../try-again\n  loom resume $(loom fork ses_… msg_…) "try it another way"',
    )
    .action(async (sessionId: string, messageId: string | undefined, options) =>
      execute(async (context) => (await import('./fork.js')).forkCommand(context, sessionId, messageId, options)),
    );
}
