import type { Command } from 'commander';
import { execute } from './execute.js';
import { promptFrom } from './prompt-argument.js';

export function registerResume(program: Command): void {
  program
    .command('resume')
    .description('continue a session with a new prompt (queued if the session is busy)')
    .argument('<sessionId>', 'the session to continue')
    .argument(
      '[prompt...]',
      'what to ask (read from stdin when omitted); none: the prompt of a run that failed before the model answered, again, or a run that timed out, continued',
    )
    .option('-a, --agent <name>', 'switch agent for this run')
    .option('-m, --model <provider/model>', 'switch model for this run')
    .option('--max-tokens <n>', "a new token budget for the session's tree (above what it has used)")
    .option('--max-cost <usd>', "a new budget in dollars for the session's tree (above what it has spent)")
    .option(
      '--timeout <duration>',
      'cancel the run this resume starts past this long (90s, 30m, 2h, 1h30m; a bare number is seconds); a busy session only queues the prompt, under its own run',
    )
    .option('--json', 'print one JSON object {sessionId, status, text, tokens} and nothing else')
    .option('--detach', 'do not wait for background subagents still running when the run ends')
    .option(
      '--dir <folder>',
      "run in this folder rather than the session's own (moving the session there): when that is gone",
    )
    .action(async (sessionId: string, words: string[], options) =>
      execute(async (context) =>
        (await import('./resume.js')).resumeCommand(context, sessionId, await promptFrom(words, true), options),
      ),
    );
}
