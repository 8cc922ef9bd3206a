import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerRm(program: Command): void {
  program
    .command('rm')
    .description('delete a session with its subagent sessions, stored messages and snapshots (refused while busy)')
    .argument('<sessionId>')
    .option('--json', 'print {removed: [session ids, children first]}')
    .addHelpText(
      'after',
      `
Every session below it (its subagents', recursively) goes too, children first. A session that is
busy, or whose run is still open in Temporal, is refused: \`loom cancel\` it first. Snapshots of
the session's files are let go when its folder is on this machine.
  loom rm ses_01…
  loom ls --json | jq -r '.[] | select(.status == "failed") | .id' | xargs -n1 loom rm`,
    )
    .action(async (sessionId: string, options) =>
      execute(async (context) => (await import('./rm.js')).rmCommand(context, sessionId, options)),
    );
}
