import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerCompact(program: Command): void {
  program
    .command('compact')
    .description('summarise an idle session, so its model sees the summary instead of the whole history')
    .argument('<sessionId>')
    .option('-m, --model <provider/model>', 'the model that writes the summary')
    .option('--json', 'print one JSON object {sessionId, status, text, tokens} and nothing else')
    .action(async (sessionId: string, options) =>
      execute(async (context) => (await import('./compact.js')).compactCommand(context, sessionId, options)),
    );
}
