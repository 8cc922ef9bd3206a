import { ActivityFailure, TimeoutFailure, isCancellation } from '@temporalio/workflow';
import { wildcardMatch, type Ruleset } from '../../core/rules/permission.js';
import type { RunConfig } from '../../core/runs/run.js';
import type { PlannedToolCall } from '../../core/tool-call/plan.js';
import type { ToolSpec } from '../../core/tool-call/spec.js';
import { findTool } from '../../core/tools/index.js';
import { DEFAULT_HOST_WAIT_MS, isNotThisHost } from '../../core/runs/workspace.js';
import {
  callStore,
  hostWaitExpired,
  localTool,
  mutatingTool,
  retriedTool,
  type Placement,
} from '../activity-policies.js';
import { failureMessage } from './failure-message.js';
import { whileHostWaits, type HostWatch } from './host-wait.js';
import { runBatchCall } from './batch-call.js';
import type { PermissionGate } from './permission-gate.js';
import { runTaskCall, type TaskContext } from './task-call.js';

export interface ToolCallContext {
  sessionId: string;
  messageId: string;
  directory: string;
  model: string;
  /** The tools the agent was offered this step. */
  offered: string[];
  gate: PermissionGate;
  /** Where the workspace tools run, and how the run shows a wait for that host. */
  placement: Placement;
  hostWatch: HostWatch;
  /** `tool:digest` of the latest calls, across steps (the doom-loop guard reads and extends it). */
  recentCalls: string[];
  doomLoopThreshold: number;
  /** For `task` calls: the run's configuration and its cap on concurrent subagents. */
  task: Omit<TaskContext, 'sessionId' | 'directory' | 'host'>;
  /** The turn came from an @mention or a command: its task calls do not ask. */
  bypassTaskAsk: boolean;
}

/**
 * Runs the tool calls of one model step at the same time, each once its permissions allow it. A
 * call the model got wrong (unknown tool, invalid arguments) or that a rule denies becomes an
 * error result it can act on. Waits for every call to settle, so a cancellation never leaves a
 * tool running behind the run's back. Returns whether a person's plain "reject" ended the turn.
 */
export async function runToolCalls(calls: PlannedToolCall[], context: ToolCallContext): Promise<{ stopTurn: boolean }> {
  const repeated = calls.map((call) => (call.rejected ? false : isDoomLoop(call, context)));
  const onHostQueue = calls.some((call) => !call.rejected && runsOnHostQueue(call));
  const running = Promise.allSettled(calls.map((call, index) => runToolCall(call, repeated[index], context)));
  const outcomes = settledValues(await (onHostQueue ? whileHostWaits(running, context.hostWatch) : running));
  // Local calls that this worker could not run, being another host's: on that host's queue, in call order.
  const elsewhere = outcomes.flatMap((outcome) => (outcome.runElsewhere ? [outcome.runElsewhere] : []));
  if (elsewhere.length > 0) {
    settledValues(await whileHostWaits(Promise.allSettled(elsewhere.map((run) => run())), context.hostWatch));
  }
  for (const outcome of outcomes) {
    if (outcome.localFailure) await callStore.failToolCall(outcome.localFailure);
  }
  return { stopTurn: outcomes.some((outcome) => outcome.stopTurn) };
}

function settledValues<T>(outcomes: PromiseSettledResult<T>[]): T[] {
  const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}

/** Whether a call of this tool is a regular activity on the workspace host's queue. */
function runsOnHostQueue(call: PlannedToolCall): boolean {
  const spec = specOf(call);
  if (!spec || spec.storeOnly || spec.name === 'task' || spec.name === 'batch') return false;
  return spec.local !== true;
}

/** Whether any call that will run may change the project's files (so the step is snapshotted). */
export function mayChangeFiles(calls: PlannedToolCall[]): boolean {
  return calls.some((call) => {
    const spec = call.rejected ? undefined : specOf(call);
    return spec !== undefined && spec.effect === 'mutating' && !spec.storeOnly;
  });
}

/** What the loop needs of a call's tool: Loom's spec, or an MCP tool's effect from the plan. */
function specOf(call: PlannedToolCall): Pick<ToolSpec, 'name' | 'effect' | 'local' | 'storeOnly'> | undefined {
  return call.mcp ? { name: call.tool, effect: call.mcp.effect } : findTool(call.tool);
}

/** The same tool with identical input `threshold` times in a row, counting earlier steps too. */
function isDoomLoop(call: PlannedToolCall, context: ToolCallContext): boolean {
  const key = `${call.tool}:${call.digest}`;
  context.recentCalls.push(key);
  if (context.recentCalls.length > context.doomLoopThreshold) context.recentCalls.shift();
  return (
    context.recentCalls.length >= context.doomLoopThreshold && context.recentCalls.every((previous) => previous === key)
  );
}

interface ToolCallOutcome {
  stopTurn: boolean;
  /**
   * A local tool activity that failed. Local activity results reach the workflow in the order they
   * finish, which a replay need not repeat, so the failures are written after every call settled,
   * in the order of the calls.
   */
  localFailure?: { partId: string; error: string };
  /** A local call refused by this worker (not the workspace's host): runs it on the host's queue. */
  runElsewhere?: () => Promise<unknown>;
}

async function runToolCall(
  call: PlannedToolCall,
  repeated: boolean,
  context: ToolCallContext,
): Promise<ToolCallOutcome> {
  // The model activity wrote the error of a call it rejected.
  if (call.rejected) return { stopTurn: false };
  const spec = specOf(call)!;
  const requests = [
    ...(repeated ? [{ permission: 'doom_loop', patterns: [call.tool], always: [call.tool] }] : []),
    ...call.permissions.filter((request) => !(context.bypassTaskAsk && request.permission === 'task')),
  ];
  const authorization = await context.gate.authorize(requests, {
    call,
    messageId: context.messageId,
    title: call.title,
  });
  if (!authorization.allowed) {
    await callStore.failToolCall({ partId: call.partId, error: authorization.error });
    return { stopTurn: authorization.stopTurn };
  }
  const orchestration = {
    ...context.task,
    sessionId: context.sessionId,
    directory: context.directory,
    host: context.placement.host,
  };
  if (spec.name === 'batch') {
    await runBatchCall(call, call.batch!, orchestration);
    return { stopTurn: false };
  }
  if (spec.name === 'task') {
    await runTaskCall(call, call.task!, orchestration);
    return { stopTurn: false };
  }
  const local = spec.local === true;
  const placement = spec.storeOnly ? undefined : context.placement;
  const remote = (summary: string) =>
    spec.effect === 'mutating' ? mutatingTool(summary, placement) : retriedTool(summary, placement);
  const run = local ? localTool(call.title) : remote(call.title);
  const toolInput = {
    sessionId: context.sessionId,
    messageId: context.messageId,
    partId: call.partId,
    callId: call.callId,
    tool: call.tool,
    ...(call.mcp ? { mcp: { server: call.mcp.server, tool: call.mcp.tool } } : {}),
    directory: context.directory,
    model: context.model,
    canDelegate: context.offered.includes('task'),
    externalAllowed: authorization.externalAllowed,
    ...(authorization.externalAllowed ? { writable: authorization.writable } : {}),
    ...(authorization.localNetworkAllowed ? { localNetworkAllowed: true } : {}),
    ...(call.tool === 'grep' ? { readRules: readRules(context.task.config) } : {}),
    ...(call.tool === 'bash' ? { agent: context.task.config.agent.name } : {}),
    workspaceConfigId: context.task.config.workspaceConfigId,
    ...(placement ? { requireHost: placement.host } : {}),
  };
  const failed = (error: unknown) => ({
    partId: call.partId,
    error: describeToolFailure(call.tool, spec.effect, error, placement),
  });
  try {
    const result = await run(toolInput);
    if (local && isNotThisHost(result)) {
      return {
        stopTurn: false,
        runElsewhere: () =>
          remote(call.title)(toolInput).catch((error: unknown) => {
            if (isCancellation(error)) throw error;
            return callStore.failToolCall(failed(error));
          }),
      };
    }
  } catch (error) {
    if (isCancellation(error)) throw error;
    if (local) return { stopTurn: false, localFailure: failed(error) };
    await callStore.failToolCall(failed(error));
  }
  return { stopTurn: false };
}

/** The rules on reading files, which also decide what a search may show of a file's lines. */
function readRules(config: RunConfig): Ruleset {
  return [...config.agent.permission, ...config.sessionRules, ...config.approved].filter((rule) =>
    wildcardMatch('read', rule.permission),
  );
}

/** Why a tool activity failed, for the model: a dead worker reads differently from a bug. */
function describeToolFailure(tool: string, effect: string, error: unknown, placement?: Placement): string {
  if (placement && hostWaitExpired(error)) {
    return (
      `Tool "${tool}" did not run: no worker of host ${placement.host}, which holds the workspace, took it within ` +
      `${Math.round((placement.waitMs ?? DEFAULT_HOST_WAIT_MS) / 1000)} s. Tell the user to start \`loom worker\` on ${placement.host}; other tools on that host will wait the same way.`
    );
  }
  const cause = error instanceof ActivityFailure ? error.cause : undefined;
  if (cause instanceof TimeoutFailure) {
    const rerun =
      effect === 'mutating'
        ? 'It was not run again because it may change things: check what it did before running it again.'
        : 'Retrying did not help.';
    return `Tool "${tool}" was interrupted: the worker running it stopped responding (${cause.timeoutType === 'HEARTBEAT' ? 'heartbeat' : 'time'} limit). ${rerun}`;
  }
  return `Tool "${tool}" could not run: ${failureMessage(error)}`;
}
