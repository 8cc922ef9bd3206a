import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerImport(program: Command): void {
  program
    .command('import')
    .description('store a session written by `loom export` as a new session (new ids), and print its id')
    .argument('<file>', 'the JSON file `loom export` wrote')
    .option('-d, --dir <path>', "the folder the session works in (default: the exported session's)")
    .option('--json', 'print {sessionId} and nothing else')
    .addHelpText(
      'after',
      `
The new session has the same title and transcript, new ids, and is idle: \`loom resume\` continues it.
  loom import session.json
  loom import session.json --dir ~/src/other-checkout --json`,
    )
    .action(async (file: string, options) =>
      execute(async (context) => (await import('./import.js')).importCommand(context, file, options)),
    );
}
