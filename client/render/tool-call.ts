import pc from 'picocolors';
import type { Part } from '../../core/part.js';
import { describeToolCall } from '../../core/tool-description.js';

export type ToolPart = Extract<Part, { type: 'tool' }>;

/** A tool call as a person reads it (see `describeToolCall`). */
export const describeCall = describeToolCall;

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
