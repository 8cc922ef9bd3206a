import { z } from 'zod';
import { SandboxConfig } from './sandbox-config.js';

// The `mcp` key of the config and the tools a server offers, as zod schemas. Apart from
// `mcp.ts`, which workflows load: every module a workflow imports is evaluated again for each one.

/** Milliseconds a server may take to start and list its tools, unless its entry says otherwise (OpenCode's default). */
export const DEFAULT_MCP_TIMEOUT_MS = 5_000;

const McpCommon = {
  /** `false` keeps the entry (from a shared config, say) without starting the server. */
  enabled: z.boolean().optional(),
  /** Milliseconds to start and list tools (default 5000). */
  timeout: z.number().int().positive().optional(),
};

/** A server Loom starts on the workspace's host and talks to over stdio. */
export const McpLocalConfig = z.strictObject({
  type: z.literal('local'),
  /** The program and its arguments: `["npx", "-y", "@modelcontextprotocol/server-everything"]`. */
  command: z.array(z.string().min(1)).min(1),
  /** Variables added to the server's environment. */
  environment: z.record(z.string(), z.string()).optional(),
  /** The folder it runs in, relative to the project (default: the project). */
  cwd: z.string().optional(),
  /** Loom only: this server's sandbox over the project's (e.g. the hosts its API lives on). */
  sandbox: SandboxConfig.optional(),
  ...McpCommon,
});

/** A server reached over HTTP: streamable HTTP, or the older SSE transport when that fails. */
export const McpRemoteConfig = z.strictObject({
  type: z.literal('remote'),
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).optional(),
  /** OpenCode's OAuth settings: accepted so its configs load; Loom sends `headers` only. */
  oauth: z.unknown().optional(),
  ...McpCommon,
});

export const McpServerConfig = z.discriminatedUnion('type', [McpLocalConfig, McpRemoteConfig]);
export type McpServerConfig = z.infer<typeof McpServerConfig>;

/** One tool of an MCP server, as a run offers it: what the model reads and what a call needs. */
export const McpToolInfo = z.object({
  /** The name the model calls: `<server>_<tool>`. */
  name: z.string(),
  server: z.string(),
  /** The tool's own name on its server. */
  tool: z.string(),
  description: z.string(),
  /** The server's JSON Schema for the arguments. */
  inputSchema: z.record(z.string(), z.unknown()),
  effect: z.enum(['read-only', 'idempotent', 'mutating']),
});
export type McpToolInfo = z.infer<typeof McpToolInfo>;
