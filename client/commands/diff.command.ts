import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerDiff(program: Command): void {
  program
    .command('diff')
    .description('print the files a session and its subagents changed, as unified diffs')
    .argument('<sessionId>')
    .option('--step <n>', "only the session's n-th step (as `loom show` numbers them)")
    .option(
      '--message <turn|messageId>',
      "only one message's changes: a turn's number or a message id, as `loom show` prints them (a prompt's: its whole turn)",
    )
    .option('--json', 'print {sessionId, files: [{file, status, additions, deletions, diff}]}')
    .addHelpText(
      'after',
      '\nExamples:\n  loom diff ses_… \n  loom diff ses_… --step 3\n  loom diff ses_… --message 2\n  loom diff ses_… --json | jq .files[].file',
    )
    .action(async (sessionId: string, options) =>
      execute(async (context) => (await import('./diff.js')).diffCommand(context, sessionId, options)),
    );
}
