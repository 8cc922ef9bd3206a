import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerAcp(program: Command): void {
  program
    .command('acp')
    .description(
      'serve an editor (Zed, JetBrains, …) over the Agent Client Protocol on stdin/stdout; sessions are Loom sessions',
    )
    .addHelpText(
      'after',
      `
The editor starts it: in Zed, settings.json "agent_servers": { "Loom": { "command": "loom", "args": ["acp"] } }.
Stdout carries the protocol only; everything else goes to stderr. With no worker polling, this
process runs one (as \`loom run\` does); when the editor goes while a turn runs on it, it stays until
the turn ends (Ctrl-C leaves it). docs/editors.md says what maps to what.`,
    )
    .action(async () => execute(async (context) => (await import('../acp/command.js')).acpCommand(context)));
}
