import { ActivityFailure, TimeoutFailure, isCancellation } from '@temporalio/workflow';
import { checkToolCall, type ToolCall } from '../../core/tool-call.js';
import { findTool } from '../../core/tools/index.js';
import { mutatingTool, retriedTool, store } from './activities.js';

export interface ToolCallContext {
  sessionId: string;
  messageId: string;
  directory: string;
  model: string;
  /** The tools the agent was offered this step. */
  offered: string[];
}

/**
 * Runs the tool calls of one model step at the same time. A call the model got wrong (unknown
 * tool, invalid arguments) becomes an error result it can correct. Waits for every call to settle
 * so that a cancellation never leaves a tool running behind the run's back.
 */
export async function runToolCalls(calls: ToolCall[], context: ToolCallContext): Promise<void> {
  const outcomes = await Promise.allSettled(calls.map((call) => runToolCall(call, context)));
  const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
}

async function runToolCall(call: ToolCall, context: ToolCallContext): Promise<void> {
  const checked = checkToolCall(call, context.offered);
  if (!checked.ok) {
    await store.failToolCall({ partId: call.partId, error: checked.error });
    return;
  }
  const spec = findTool(checked.call.tool)!;
  const summary = `${spec.name} · ${spec.summarize(checked.input)}`;
  const run = spec.effect === 'mutating' ? mutatingTool(summary) : retriedTool(summary);
  try {
    await run({
      sessionId: context.sessionId,
      messageId: context.messageId,
      partId: call.partId,
      callId: call.callId,
      tool: checked.call.tool,
      input: checked.input,
      directory: context.directory,
      model: context.model,
      canDelegate: context.offered.includes('task'),
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    await store.failToolCall({ partId: call.partId, error: describeToolFailure(checked.call.tool, spec.effect, error) });
  }
}

/** Why a tool activity failed, for the model: a dead worker reads differently from a bug. */
function describeToolFailure(tool: string, effect: string, error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : undefined;
  if (cause instanceof TimeoutFailure) {
    const rerun =
      effect === 'mutating'
        ? 'It was not run again because it may change things: check what it did before running it again.'
        : 'Retrying did not help.';
    return `Tool "${tool}" was interrupted: the worker running it stopped responding (${cause.timeoutType === 'HEARTBEAT' ? 'heartbeat' : 'time'} limit). ${rerun}`;
  }
  return `Tool "${tool}" could not run: ${messageOf(error)}`;
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? cause.message : error.message;
  }
  return String(error);
}
