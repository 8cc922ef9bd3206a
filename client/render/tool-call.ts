import pc from 'picocolors';
import type { Part } from '../../core/part.js';
import { findTool } from '../../core/tools/index.js';

export type ToolPart = Extract<Part, { type: 'tool' }>;

/**
 * `read README.md`, `grep TODO in *.ts`: a tool call as a person reads it, the tool and its main
 * argument (from the tool's spec). `loom run`'s live lines and `loom show` both use it, so the two
 * always say the same of one call.
 */
export function describeCall(tool: string, input: unknown): string {
  const spec = findTool(tool);
  const parsed = spec?.parameters.safeParse(input);
  return spec && parsed?.success ? `${tool} ${spec.summarize(parsed.data)}` : tool;
}

/** ✓ done, ✗ failed, … not finished yet. */
export function callMark(status: string): string {
  return status === 'completed' ? pc.green('✓') : status === 'error' ? pc.red('✗') : pc.yellow('…');
}

/** A subagent's tool call as its parent's `task` call lists it: `  ↳ ✓ read notes.md`. */
export function subagentCallLine(call: ToolPart | { tool: string; status: string }): string {
  const [status, description] = 'state' in call ? [call.state.status, describeCall(call.tool, call.state.input)] : [call.status, call.tool];
  return pc.dim(`  ↳ ${callMark(status)} ${description}`);
}

/** The subagent session a `task` call started, from its part's metadata. */
export function taskSessionId(part: ToolPart): string | undefined {
  if (part.tool !== 'task' || !('metadata' in part.state)) return undefined;
  const id = part.state.metadata?.sessionId;
  return typeof id === 'string' ? id : undefined;
}
