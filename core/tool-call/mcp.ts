import { z } from 'zod';
import type { McpToolInfo } from '../config/mcp-config.js';
import type { ToolSpec } from './spec.js';

export type { McpServerConfig, McpToolInfo } from '../config/mcp-config.js';

/** What a planned call of an MCP tool carries to the loop: where it goes, and how it may be retried. */
export interface McpCallPlan {
  server: string;
  tool: string;
  effect: McpToolInfo['effect'];
}

/** `<server>_<tool>`, as OpenCode names them: characters model APIs refuse in a tool name become `_`. */
export function mcpToolName(server: string, tool: string): string {
  const clean = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_');
  return `${clean(server)}_${clean(tool)}`;
}

/**
 * How a call may be retried, from the server's hints: only a tool that says it only reads, or
 * that repeating it is harmless, is retried; any other may change the world and runs at most once.
 */
export function mcpEffect(
  annotations: { readOnlyHint?: boolean; idempotentHint?: boolean } | undefined,
): McpToolInfo['effect'] {
  if (annotations?.readOnlyHint === true) return 'read-only';
  if (annotations?.idempotentHint === true) return 'idempotent';
  return 'mutating';
}

const specs = new Map<string, ToolSpec>();

/**
 * The tool spec of an MCP tool: arguments checked against the server's schema (as far as zod
 * reads JSON Schema; an object of any shape when it cannot), permission named after the tool.
 */
export function mcpToolSpec(info: McpToolInfo): ToolSpec {
  const key = JSON.stringify(info);
  let spec = specs.get(key);
  if (!spec) {
    spec = {
      name: info.name,
      description: info.description,
      parameters: argumentsSchema(info.inputSchema),
      inputSchema: info.inputSchema,
      effect: info.effect,
      mcp: { server: info.server, tool: info.tool },
      summarize: (input) => summarizeArguments(input as Record<string, unknown>),
    };
    if (specs.size > 1_000) specs.clear();
    specs.set(key, spec);
  }
  return spec;
}

function argumentsSchema(schema: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(schema as never);
  } catch {
    return z.record(z.string(), z.unknown());
  }
}

/** The first short string argument: `create_issue · Fix the login page`. */
function summarizeArguments(input: Record<string, unknown>): string {
  const text = Object.values(input ?? {}).find(
    (value): value is string => typeof value === 'string' && value.length > 0,
  );
  return text ? (text.length > 60 ? `${text.slice(0, 59)}…` : text) : '';
}
