import { z } from 'zod';
import type { ToolSpec } from './spec.js';
import { findTool } from '../tools/index.js';

/** Finds a tool by name: Loom's own, or with the run's MCP tools too (see `toolFinder`). */
export type FindTool = (name: string) => ToolSpec | undefined;

/** A tool call as the model made it: raw input, not yet validated. */
export interface ToolCall {
  partId: string;
  callId: string;
  tool: string;
  /** The parsed JSON input, or the raw text when the model sent JSON that does not parse. */
  input: unknown;
}

export type CheckedToolCall =
  | { ok: true; call: ToolCall & { tool: string }; input: Record<string, unknown> }
  | { ok: false; call: ToolCall; error: string };

/**
 * Checks a call against the tools the agent was offered. A wrongly cased name is repaired; an
 * unknown tool or invalid arguments become an error the model sees and can correct.
 */
export function checkToolCall(call: ToolCall, offered: readonly string[], find: FindTool = findTool): CheckedToolCall {
  const name = offered.includes(call.tool)
    ? call.tool
    : offered.find((candidate) => candidate === call.tool.toLowerCase());
  const spec = name ? find(name) : undefined;
  if (!name || !spec) {
    return {
      ok: false,
      call,
      error: `Unknown tool "${call.tool}". Available tools: ${offered.join(', ') || 'none'}`,
    };
  }
  if (typeof call.input === 'string') {
    return { ok: false, call, error: `The arguments provided to the tool are not valid JSON: ${call.input}` };
  }
  const parsed = spec.parameters.safeParse(call.input ?? {});
  if (!parsed.success) {
    return {
      ok: false,
      call,
      error: `The arguments provided to the tool "${name}" are invalid:\n${z.prettifyError(parsed.error)}\nCall it again with corrected arguments.`,
    };
  }
  return { ok: true, call: { ...call, tool: name }, input: parsed.data as Record<string, unknown> };
}
