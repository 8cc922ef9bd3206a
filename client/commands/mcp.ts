import { resolve } from 'node:path';
import pc from 'picocolors';
import { loadConfig } from '../../activities/config/load.js';
import { recordedFiles } from '../../activities/config/files.js';
import { filesForPerson, reviewConfig } from '../services/config-review.js';
import { describeWaiting } from './config.js';
import { closeMcpServers, mcpServerStates, type McpServerState } from '../../activities/mcp/servers.js';
import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';

const MARK: Record<McpServerState['status'], string> = {
  connected: pc.green('✓'),
  failed: pc.red('✗'),
  disabled: pc.dim('○'),
};

/**
 * `loom mcp ls`: the project's MCP servers, started here as a worker on this machine would start
 * them, with their state and the tools a run is offered. A server that fails makes it exit 1, with
 * the reason and the server's stderr. While a change an agent made to the config waits for a
 * person, the servers are those of the configuration they last trusted, as a run's would be.
 */
export async function mcpListCommand(
  context: ClientContext,
  options: { json?: boolean; dir?: string },
): Promise<number> {
  const directory = resolve(options.dir ?? process.cwd());
  const { standing, waiting } = await reviewConfig(context.store, directory, context.env);
  if (waiting)
    context.report(`${describeWaiting(waiting)}\nListed: the servers of the configuration you last trusted.`);
  let config;
  try {
    config = loadConfig(directory, context.env, recordedFiles(filesForPerson(standing)));
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  const servers = config.mcp ?? {};
  if (Object.keys(servers).length === 0) {
    if (options.json) process.stdout.write(`${JSON.stringify({ servers: [] })}\n`);
    else context.report(`No MCP servers for ${directory}: add them under "mcp" in loom.json (or opencode.json).`);
    return 0;
  }
  try {
    const states = await mcpServerStates(servers, { directory, env: context.env, config });
    if (options.json) process.stdout.write(`${JSON.stringify({ servers: states })}\n`);
    else for (const state of states) process.stdout.write(describe(state));
    return states.some((state) => state.status === 'failed') ? 1 : 0;
  } finally {
    await closeMcpServers();
  }
}

function describe(state: McpServerState): string {
  const count =
    state.status === 'connected' ? ` · ${state.tools.length} ${state.tools.length === 1 ? 'tool' : 'tools'}` : '';
  const lines = [`${MARK[state.status]} ${pc.bold(state.name)}  ${pc.dim(`${state.type} · ${state.status}${count}`)}`];
  for (const tool of state.tools)
    lines.push(
      `    ${tool.name}  ${pc.dim(firstLine(tool.description))}${tool.effect === 'mutating' ? '' : pc.dim(` (${tool.effect})`)}`,
    );
  if (state.skipped) lines.push(`    ${pc.yellow(`not offered: ${state.skipped.join(', ')}`)}`);
  if (state.error) lines.push(`    ${pc.red(state.error)}`);
  if (state.stderr)
    lines.push(
      ...state.stderr
        .split('\n')
        .slice(-10)
        .map((line) => `    ${pc.dim(`stderr: ${line}`)}`),
    );
  return `${lines.join('\n')}\n\n`;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0].trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
