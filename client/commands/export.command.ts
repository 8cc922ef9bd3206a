import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description("write a session as JSON in OpenCode's export shape {info, messages: [{info, parts}], todos}")
    .argument('<sessionId>')
    .option('-o, --output <file>', 'write it to this file (default: stdout)')
    .addHelpText(
      'after',
      `
The session's own messages and parts; its subagents' sessions are not exported (the task calls
that started them keep their results). \`loom import\` brings the file back as a new session.
  loom export ses_01… > session.json
  loom export ses_01… --output session.json`,
    )
    .action(async (sessionId: string, options) =>
      execute(async (context) => (await import('./export.js')).exportCommand(context, sessionId, options)),
    );
}
