import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerRevert(program: Command): void {
  program
    .command('revert')
    .description(
      'undo a turn: put back the files the session (and its subagents) changed from a message on, and hide those messages from the model',
    )
    .argument('<sessionId>')
    .argument(
      '[turn|messageId]',
      "where to go back to: a turn's number or a message id, as `loom show` prints them (default: the last prompt)",
    )
    .option('--force', 'also overwrite files someone changed after the agent (otherwise reported and left alone)')
    .option('--json', 'print {sessionId, messageID, restored, conflicts}')
    .addHelpText(
      'after',
      '\nOnly files the agents changed are touched. `loom unrevert` brings files and messages back, until the next prompt drops them.\nExamples:\n  loom revert ses_…\n  loom revert ses_… 3\n  loom revert ses_… msg_…',
    )
    .action(async (sessionId: string, messageId: string | undefined, options) =>
      execute(async (context) => (await import('./revert.js')).revertCommand(context, sessionId, messageId, options)),
    );
}

export function registerUnrevert(program: Command): void {
  program
    .command('unrevert')
    .description("undo the session's last revert: its files and messages come back")
    .argument('<sessionId>')
    .option('--force', 'also overwrite files someone changed after the revert')
    .option('--json', 'print {sessionId, messageID, restored, conflicts}')
    .action(async (sessionId: string, options) =>
      execute(async (context) => (await import('./revert.js')).unrevertCommand(context, sessionId, options)),
    );
}
