import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { resolve } from 'node:path';
import type { McpServerConfig } from '../../core/tool-call/mcp.js';
import { mergeSandboxConfig } from '../../core/config/sandbox-config.js';
import type { LoomConfig } from '../../core/config/config.js';
import { LOOM_VERSION } from '../process/package-root.js';
import { dataDir } from '../process/paths.js';
import { sandboxRefusal } from '../sandbox/explain-refusal.js';
import { confine } from '../sandbox/process-sandbox.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { toolEnvironment } from '../tools/shell/tool-env.js';
import { warnOnceInWorkerLog } from '../process/worker-log.js';
import { errorMessage } from '../../core/text/error-message.js';
import { failureNote } from './failure-note.js';
import { serverNeeds } from './server-sandbox.js';

/** The last this many characters of a local server's stderr are kept, to say why it failed. */
const STDERR_LIMIT = 4_000;

/** Where a server runs and what it inherits: the project folder and this worker's environment. */
export interface ServerPlace {
  directory: string;
  env: NodeJS.ProcessEnv;
  config: LoomConfig;
  /** Loom's data folder, which a local server's sandbox hides (default: the one `env` names). */
  dataDir?: string;
}

/** A connection to one MCP server, from start to close; `closed` is set when the server goes away. */
export class McpConnection {
  readonly client = new Client({ name: 'loom', version: LOOM_VERSION });
  closed = false;
  private stderrTail = '';
  private tools?: Tool[];
  private pid?: number;
  private sandbox?: Sandbox;

  private constructor(
    readonly name: string,
    private readonly transport: Transport,
  ) {}

  /** Starts (or reaches) the server and completes MCP's handshake within `timeoutMs`. */
  static async open(
    name: string,
    server: McpServerConfig,
    place: ServerPlace,
    timeoutMs: number,
  ): Promise<McpConnection> {
    if (server.type === 'local') return McpConnection.openLocal(name, server, place, timeoutMs);
    try {
      return await McpConnection.start(
        name,
        new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }),
        timeoutMs,
      );
    } catch (streamable) {
      // Servers written before streamable HTTP speak SSE on the same URL; OpenCode tries both too.
      try {
        return await McpConnection.start(
          name,
          new SSEClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }),
          timeoutMs,
        );
      } catch {
        throw streamable;
      }
    }
  }

  private static async openLocal(
    name: string,
    server: Extract<McpServerConfig, { type: 'local' }>,
    place: ServerPlace,
    timeoutMs: number,
  ): Promise<McpConnection> {
    const needs = await serverNeeds(server, place.env);
    // Like bash: the worker's environment without credentials; a server that needs a key gets it in `environment`.
    const env = { ...toolEnvironment(place.env, place.config), ...needs.env, ...server.environment } as Record<
      string,
      string
    >;
    const cwd = resolve(place.directory, server.cwd ?? '.');
    const what = `The MCP server "${name}"`;
    const config = mergeSandboxConfig(mergeSandboxConfig(place.config.sandbox, needs.sandbox), server.sandbox);
    const { sandbox, warning } = await confine(config, {
      workspace: place.directory,
      dataDir: place.dataDir ?? dataDir(place.env),
      cwd,
      env: place.env,
      sessionId: `mcp-${name}`,
      ownTmp: true,
      shownFromHostTmp: needs.shownFromHostTmp,
      what,
    });
    if (warning) warnOnceInWorkerLog(warning);
    const [command, ...args] = sandboxed(server.command, sandbox);
    const transport = new StdioClientTransport({
      command,
      args,
      env: sandbox ? { ...env, ...sandbox.env } : env,
      cwd,
      stderr: 'pipe',
    });
    const connection = new McpConnection(name, transport);
    connection.sandbox = sandbox;
    transport.stderr?.on('data', (chunk: Buffer) => {
      connection.stderrTail = (connection.stderrTail + chunk.toString('utf8')).slice(-STDERR_LIMIT);
    });
    try {
      await connection.handshake(timeoutMs);
    } catch (error) {
      // The process may print its last words a moment after the pipe broke.
      await new Promise((done) => setTimeout(done, 50));
      const refusal = sandbox
        ? sandboxRefusal(connection.stderr, true, sandbox.policy, sandbox.refused(), {
            hostSockets: sandbox.hostSockets,
          })
        : undefined;
      const note = failureNote(name, connection.stderr, {
        refusal,
        needs,
        sandboxed: sandbox !== undefined,
        timedOut: /timed out/i.test(errorMessage(error)),
      });
      const stderr = [connection.stderr, note].filter(Boolean).join('\n');
      throw Object.assign(error instanceof Error ? error : new Error(String(error)), { stderr });
    }
    connection.pid = transport.pid ?? undefined;
    return connection;
  }

  private static async start(name: string, transport: Transport, timeoutMs: number): Promise<McpConnection> {
    const connection = new McpConnection(name, transport);
    await connection.handshake(timeoutMs);
    return connection;
  }

  private async handshake(timeoutMs: number): Promise<void> {
    this.client.onclose = () => {
      this.closed = true;
      // A server that exited takes its sandbox's /tmp with it.
      void this.sandbox?.close();
    };
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.tools = undefined;
    });
    try {
      await this.client.connect(this.transport, { timeout: timeoutMs });
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** What the server wrote to stderr lately (local servers), trimmed. */
  get stderr(): string {
    return this.stderrTail.trim();
  }

  /** The process id of a local server while it runs. */
  get processId(): number | undefined {
    return this.closed ? undefined : this.pid;
  }

  /** The server's tools, every page; kept until the server says its list changed. */
  async listTools(timeoutMs: number): Promise<Tool[]> {
    if (this.tools) return this.tools;
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    this.tools = tools;
    return tools;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client.close().catch(() => undefined);
    await this.sandbox?.close();
  }
}

/** A server's command line, started in its sandbox (after the network bridge, when there is one). */
function sandboxed(command: string[], sandbox: Sandbox | undefined): string[] {
  if (!sandbox) return command;
  if (!sandbox.preamble) return [...sandbox.launcher, ...command];
  return [...sandbox.launcher, 'bash', '-c', `${sandbox.preamble}exec "$@"`, 'mcp-server', ...command];
}
