import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerTree(program: Command): void {
  program
    .command('tree')
    .description('show a session and its subagents, with tokens and cost per session and subtree')
    .argument('<sessionId>')
    .option('--json', 'print the tree as JSON')
    .action(async (sessionId: string, options) =>
      execute(async (context) => (await import('./tree.js')).treeCommand(context, sessionId, options)),
    );
}
