import { ActivityFailure, TimeoutFailure, isCancellation, patched } from '@temporalio/workflow';
import { checkToolCall, type CheckedToolCall, type ToolCall } from '../../core/tool-call.js';
import { deniedMessage, evaluate, permissionOfTool, wildcardMatch, type Ruleset } from '../../core/permission.js';
import { permissionsOf } from '../../core/tool-permissions.js';
import { findTool } from '../../core/tools/index.js';
import { LOCAL_TOOLS, callStore, localTool, mutatingTool, retriedTool } from './activities.js';
import { runBatchCall, type BatchCallInput } from './batch-call.js';
import type { PermissionGate } from './permission-gate.js';
import { runTaskCall, type TaskContext, type TaskInput } from './task-call.js';

export interface ToolCallContext {
  sessionId: string;
  messageId: string;
  directory: string;
  model: string;
  /** The tools the agent was offered this step. */
  offered: string[];
  gate: PermissionGate;
  /** The agent's rules: a call to a tool they hide gets the rule's error, not "unknown tool". */
  agentRules: Ruleset;
  /** `tool:input` of the latest calls, across steps (the doom-loop guard reads and extends it). */
  recentCalls: string[];
  doomLoopThreshold: number;
  /** For `task` calls: the run's configuration and its cap on concurrent subagents. */
  task: Omit<TaskContext, 'sessionId' | 'directory'>;
  /** The turn came from an @mention or a command: its task calls do not ask. */
  bypassTaskAsk: boolean;
}

/**
 * Runs the tool calls of one model step at the same time, each once its permissions allow it. A
 * call the model got wrong (unknown tool, invalid arguments) or that a rule denies becomes an
 * error result it can act on. Waits for every call to settle, so a cancellation never leaves a
 * tool running behind the run's back. Returns whether a person's plain "reject" ended the turn.
 */
export async function runToolCalls(calls: ToolCall[], context: ToolCallContext): Promise<{ stopTurn: boolean }> {
  const checked = calls.map((call) => checkToolCall(call, context.offered));
  const repeated = checked.map((check) => (check.ok ? isDoomLoop(check.call.tool, check.input, context) : false));
  const outcomes = await Promise.allSettled(checked.map((check, index) => runToolCall(check, repeated[index], context)));
  const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled' && outcome.value.localFailure) await callStore.failToolCall(outcome.value.localFailure);
  }
  return { stopTurn: outcomes.some((outcome) => outcome.status === 'fulfilled' && outcome.value.stopTurn) };
}

/** The same tool with identical input `threshold` times in a row, counting earlier steps too. */
function isDoomLoop(tool: string, input: unknown, context: ToolCallContext): boolean {
  const key = `${tool}:${JSON.stringify(input)}`;
  context.recentCalls.push(key);
  if (context.recentCalls.length > context.doomLoopThreshold) context.recentCalls.shift();
  return context.recentCalls.length >= context.doomLoopThreshold && context.recentCalls.every((previous) => previous === key);
}

interface ToolCallOutcome {
  stopTurn: boolean;
  /**
   * A local tool activity that failed. Local activity results reach the workflow in the order they
   * finish, which a replay need not repeat, so the failures are written after every call settled,
   * in the order of the calls.
   */
  localFailure?: { partId: string; error: string };
}

async function runToolCall(checked: CheckedToolCall, repeated: boolean, context: ToolCallContext): Promise<ToolCallOutcome> {
  if (!checked.ok) {
    await callStore.failToolCall({ partId: checked.call.partId, error: notOffered(checked.call.tool, context) ?? checked.error });
    return { stopTurn: false };
  }
  const { call, input } = checked;
  const spec = findTool(call.tool)!;
  const summary = `${spec.name} · ${spec.summarize(input)}`;
  const requests = [
    ...(repeated ? [{ permission: 'doom_loop', patterns: [call.tool], always: [call.tool] }] : []),
    ...permissionsOf(spec, input, { directory: context.directory }).filter(
      (request) => !(context.bypassTaskAsk && request.permission === 'task'),
    ),
  ];
  const authorization = await context.gate.authorize(requests, { call, messageId: context.messageId, title: summary });
  if (!authorization.allowed) {
    await callStore.failToolCall({ partId: call.partId, error: authorization.error });
    return { stopTurn: authorization.stopTurn };
  }
  if (spec.name === 'batch') {
    await runBatchCall(call, input as unknown as BatchCallInput, { ...context.task, sessionId: context.sessionId, directory: context.directory });
    return { stopTurn: false };
  }
  if (spec.name === 'task') {
    await runTaskCall(call, input as unknown as TaskInput, { ...context.task, sessionId: context.sessionId, directory: context.directory });
    return { stopTurn: false };
  }
  const local = spec.local === true && patched(LOCAL_TOOLS);
  const run = local ? localTool(summary) : spec.effect === 'mutating' ? mutatingTool(summary) : retriedTool(summary);
  try {
    await run({
      sessionId: context.sessionId,
      messageId: context.messageId,
      partId: call.partId,
      callId: call.callId,
      tool: call.tool,
      input,
      directory: context.directory,
      model: context.model,
      canDelegate: context.offered.includes('task'),
      externalAllowed: authorization.externalAllowed,
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    const failure = { partId: call.partId, error: describeToolFailure(call.tool, spec.effect, error) };
    if (local) return { stopTurn: false, localFailure: failure };
    await callStore.failToolCall(failure);
  }
  return { stopTurn: false };
}

/** Why a known tool was not offered: the agent's rules deny it, or (at the step limit) no tools are. */
function notOffered(tool: string, context: ToolCallContext): string | undefined {
  const spec = findTool(tool) ?? findTool(tool.toLowerCase());
  if (!spec || context.offered.includes(spec.name)) return undefined;
  const permission = permissionOfTool(spec.name);
  if (evaluate(permission, '*', context.agentRules).action === 'deny') {
    return deniedMessage(context.agentRules.filter((rule) => wildcardMatch(permission, rule.permission)));
  }
  return `Tool "${spec.name}" is not available now. Available tools: ${context.offered.join(', ') || 'none'}`;
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
