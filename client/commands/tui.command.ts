import type { Command } from 'commander';
import { execute } from './execute.js';
import { reportRouter } from '../tui/report-router.js';

export function registerTui(program: Command): void {
  program
    .command('tui')
    .description('open the terminal UI on a session (what `loom` alone opens in a terminal)')
    .argument('[sessionId]', 'the session to open (default: a new session)')
    .option('-c, --continue', "open the project's latest session")
    .option('-d, --dir <path>', 'the project directory (default: the current directory)')
    .addHelpText(
      'after',
      `
Type a prompt and press Enter; Ctrl+J (or Shift+Enter where the terminal tells it) starts a new line.
Ctrl+X is the leader: Ctrl+X then → / ← moves through the session's subagents, ↑ to the parent,
↓ lists the subagents, L lists sessions, N starts a new one, M picks a model. Tab picks the agent.
A waiting approval shows above the prompt: a allows once, A always, r rejects (with a message).
Esc twice (or Ctrl+C) cancels the running turn; Ctrl+D or /exit quits and leaves the run going.
  loom                       # the same as loom tui, in a terminal
  loom tui ses_01J…          # reopen a session, live run and waiting approvals included
  loom tui --continue        # the project's latest session`,
    )
    .action(async (sessionId: string | undefined, options) =>
      execute(async (context) => (await import('./tui.js')).tuiCommand(context, sessionId, options), {
        report: reportRouter.report,
      }),
    );
}

/** Whether `loom` was run with no arguments in a terminal a person uses: then it opens the terminal UI. */
export function opensTuiByDefault(argv: string[], env: NodeJS.ProcessEnv = process.env): boolean {
  return argv.length === 2 && Boolean(process.stdin.isTTY && process.stdout.isTTY) && env.TERM !== 'dumb';
}
