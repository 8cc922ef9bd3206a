import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { mcpEffect, mcpToolName } from '../../core/tool-call/mcp.js';
import { DEFAULT_MCP_TIMEOUT_MS, type McpServerConfig, type McpToolInfo } from '../../core/config/mcp-config.js';
import { findTool } from '../../core/tools/index.js';
import { McpConnection, type ServerPlace } from './connection.js';
import { startTimeoutMs } from './server-sandbox.js';
import { errorMessage } from '../../core/text/error-message.js';

/** A server that failed to start is tried again on the next run after this long, not on every run. */
const RETRY_FAILED_AFTER_MS = 15_000;

/** One configured server on this worker: its connection, the one being opened, or why it failed. */
interface Entry {
  /** The server's entry as configured: a changed entry is a new server. */
  config: string;
  connection?: McpConnection;
  opening?: Promise<McpConnection>;
  failure?: { error: McpServerError; at: number };
}

/** A server that could not start or answer: the message names it, `stderr` holds its last words. */
export class McpServerError extends Error {
  override name = 'McpServerError';
  constructor(
    message: string,
    readonly stderr = '',
  ) {
    super(message);
  }
}

/** What `loom mcp ls` and a run's start see of one server. */
export interface McpServerState {
  name: string;
  type: McpServerConfig['type'];
  status: 'connected' | 'failed' | 'disabled';
  error?: string;
  stderr?: string;
  tools: McpToolInfo[];
  /** Tools not offered, and why (a name taken already, or too long for model APIs). */
  skipped?: string[];
}

/** Model APIs refuse longer tool names (OpenAI's limit); one such tool would fail every model call. */
const TOOL_NAME_LIMIT = 64;

/**
 * The MCP servers of this worker, by project folder and name. Each is started once and shared by
 * every session of the project; one that died (or whose entry changed) is started again when next
 * needed.
 */
const entries = new Map<string, Entry>();

/** The connection to a project's server, started if it is not running. */
export async function mcpConnection(name: string, server: McpServerConfig, place: ServerPlace): Promise<McpConnection> {
  const key = `${place.directory}\0${name}`;
  const config = JSON.stringify(server);
  let entry = entries.get(key);
  if (entry && entry.config !== config) {
    void entry.connection?.close();
    entry = undefined;
  }
  if (!entry) entries.set(key, (entry = { config }));
  if (entry.connection && !entry.connection.closed) return entry.connection;
  if (entry.opening) return entry.opening;
  if (entry.failure && Date.now() - entry.failure.at < RETRY_FAILED_AFTER_MS) throw entry.failure.error;
  const current = entry;
  current.connection = undefined;
  current.opening = McpConnection.open(name, server, place, startTimeoutMs(server)).then(
    (connection) => {
      Object.assign(current, { connection, opening: undefined, failure: undefined });
      watchForExit();
      return connection;
    },
    (error: unknown) => {
      const failure = new McpServerError(
        `MCP server "${name}" failed to start: ${describe(error, server)}`,
        (error as { stderr?: string }).stderr ?? '',
      );
      Object.assign(current, { opening: undefined, failure: { error: failure, at: Date.now() } });
      throw failure;
    },
  );
  return current.opening;
}

/**
 * Every server of a project with its tools: started where needed, each within its `timeout`. A
 * server that fails is reported as failed, never thrown: the run goes on without its tools.
 */
export async function mcpServerStates(
  servers: Record<string, McpServerConfig>,
  place: ServerPlace,
  maxWaitMs?: number,
): Promise<McpServerState[]> {
  const taken = new Set<string>();
  const states = await Promise.all(
    Object.entries(servers).map(async ([name, server]): Promise<McpServerState> => {
      const state = { name, type: server.type, tools: [] };
      if (server.enabled === false) return { ...state, status: 'disabled' };
      try {
        const listing = mcpConnection(name, server, place).then((connection) =>
          connection.listTools(server.timeout ?? DEFAULT_MCP_TIMEOUT_MS),
        );
        const tools = await (maxWaitMs === undefined ? listing : withinWait(listing, maxWaitMs, name));
        return { ...state, status: 'connected', tools: tools.map((tool) => toolInfo(name, tool)) };
      } catch (error) {
        const stderr = error instanceof McpServerError ? error.stderr : '';
        const message =
          error instanceof McpServerError
            ? error.message
            : `MCP server "${name}" did not list its tools: ${describe(error, server)}`;
        return { ...state, status: 'failed', error: message, ...(stderr ? { stderr } : {}) };
      }
    }),
  );
  // A name taken by one of Loom's tools or by an earlier server is not offered twice.
  for (const state of states) {
    const skipped: string[] = [];
    state.tools = state.tools.filter((tool) => {
      const problem =
        tool.name.length > TOOL_NAME_LIMIT
          ? `longer than ${TOOL_NAME_LIMIT} characters`
          : findTool(tool.name)
            ? "the name of one of Loom's tools"
            : taken.has(tool.name)
              ? "the name of another server's tool"
              : undefined;
      if (problem) skipped.push(`${tool.name} (${problem})`);
      else taken.add(tool.name);
      return !problem;
    });
    if (skipped.length) state.skipped = skipped;
  }
  return states;
}

/** A server slower than a run may wait goes on starting; the runs after it get its tools. */
async function withinWait<T>(work: Promise<T>, waitMs: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new McpServerError(
            `MCP server "${name}" is still starting after ${waitMs / 1000} s (runs that start later get its tools)`,
          ),
        ),
      waitMs,
    );
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Stops every server this worker started (tests, and a worker shutting down). */
export async function closeMcpServers(): Promise<void> {
  const open = [...entries.values()].flatMap((entry) => (entry.connection ? [entry.connection] : []));
  entries.clear();
  await Promise.all(open.map((connection) => connection.close()));
}

function toolInfo(server: string, tool: Tool): McpToolInfo {
  return {
    name: mcpToolName(server, tool.name),
    server,
    tool: tool.name,
    description: tool.description ?? tool.title ?? tool.name,
    inputSchema: tool.inputSchema as Record<string, unknown>,
    effect: mcpEffect(tool.annotations),
  };
}

function describe(error: unknown, server: McpServerConfig): string {
  let message = errorMessage(error);
  if (server.type === 'local' && /Connection closed/.test(message)) message = 'the process exited before it answered';
  const where = server.type === 'local' ? `command ${JSON.stringify(server.command)}` : server.url;
  return `${message} (${where})`;
}

let watching = false;

/** Local servers are child processes: they go when the worker goes, however it exits. */
function watchForExit(): void {
  if (watching) return;
  watching = true;
  process.once('exit', () => {
    for (const entry of entries.values()) {
      const pid = entry.connection?.processId;
      if (pid) {
        try {
          process.kill(pid);
        } catch {
          // Already gone.
        }
      }
    }
  });
}
