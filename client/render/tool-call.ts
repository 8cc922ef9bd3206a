import pc from 'picocolors';
import type { TaskStep } from '../../activities/session/task-progress.js';
import type { Part } from '../../core/records/part.js';

export type ToolPart = Extract<Part, { type: 'tool' }>;

/** ✓ done, ✗ failed, … not finished yet. */
export function callMark(status: string): string {
  return status === 'completed' ? pc.green('✓') : status === 'error' ? pc.red('✗') : pc.yellow('…');
}

/**
 * What the sandbox refused a call that ran (bash's `metadata.sandboxRefusal`): the call is shown
 * failed, with this, though the command's exit counted as a result for the model.
 */
export function sandboxRefusalOf(part: ToolPart): string | undefined {
  if (part.state.status !== 'completed') return undefined;
  const refusal = part.state.metadata?.sandboxRefusal;
  return typeof refusal === 'string' ? `the sandbox refused: ${refusal}` : undefined;
}

/** The subagent's tool calls a `task` part lists (`metadata.summary`, kept by activities/session/task-progress.ts). */
export function subagentSteps(metadata: Record<string, unknown> | undefined): TaskStep[] {
  return (metadata?.summary as TaskStep[] | undefined) ?? [];
}

/**
 * A subagent's tool call as its parent's `task` call lists it, `  ↳ ✓ read notes.md`: described
 * from its input when it ran (`describeToolCall`), by its result's title in sessions stored before.
 */
export function subagentCallLine(step: TaskStep): string {
  const description = step.description ?? `${step.tool}${step.title ? ` ${step.title}` : ''}`;
  return pc.dim(`  ↳ ${callMark(step.status)} ${description}`);
}

/** The subagent session a `task` call started, from its part's metadata. */
export function taskSessionId(part: ToolPart): string | undefined {
  if (part.tool !== 'task' || !('metadata' in part.state)) return undefined;
  const id = part.state.metadata?.sessionId;
  return typeof id === 'string' ? id : undefined;
}
