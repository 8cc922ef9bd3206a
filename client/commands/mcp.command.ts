import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerMcp(program: Command): void {
  const mcp = program.command('mcp').description("the project's MCP servers");

  mcp
    .command('ls')
    .alias('list')
    .description('start the MCP servers as a worker here would, and list each with its state and tools')
    .option('-d, --dir <path>', 'the project directory (default: the current directory)')
    .option('--json', 'print {servers} as JSON')
    .action(async (options) => execute(async (context) => (await import('./mcp.js')).mcpListCommand(context, options)));
}
