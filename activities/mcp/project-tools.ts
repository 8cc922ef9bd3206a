import type { McpToolInfo } from '../../core/tool-call/mcp.js';
import type { LoomConfig } from '../../core/config/config.js';
import { warnOnceInWorkerLog } from '../process/worker-log.js';

/** The same failure is written to the worker's log once a minute at most, not once per run. */
const REPEAT_WARNING_AFTER_MS = 60_000;
/** A run's start waits this long at most for slow servers (its activity has 30 s). */
const RUN_START_WAIT_MS = 20_000;

/**
 * The MCP tools a run of the project may be offered, from the servers this worker runs for it. A
 * server that fails is named in the worker's log with its stderr, and the run goes on without it.
 */
export async function projectMcpTools(
  config: LoomConfig,
  directory: string,
  env: NodeJS.ProcessEnv,
): Promise<McpToolInfo[]> {
  if (!config.mcp || Object.keys(config.mcp).length === 0) return [];
  // The MCP SDK (and its schemas) loads only for projects that have servers: the CLI reads agents through here.
  const { mcpServerStates } = await import('./servers.js');
  const states = await mcpServerStates(config.mcp, { directory, env, config }, RUN_START_WAIT_MS);
  for (const state of states) {
    if (state.status === 'failed')
      warnOnceInWorkerLog(`${state.error}; its tools are not offered.${state.stderr ? `\n${state.stderr}` : ''}`, {
        againAfterMs: REPEAT_WARNING_AFTER_MS,
      });
    if (state.skipped)
      warnOnceInWorkerLog(`MCP server "${state.name}": tools not offered: ${state.skipped.join(', ')}`, {
        againAfterMs: REPEAT_WARNING_AFTER_MS,
      });
  }
  return states.flatMap((state) => state.tools);
}
