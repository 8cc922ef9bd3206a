import {
  deniedMessage,
  evaluate,
  permissionOfTool,
  wildcardMatch,
  type PermissionRequest,
  type Ruleset,
} from '../rules/permission.js';
import { preview } from '../records/prompt.js';
import type { McpCallPlan } from './mcp.js';
import { checkToolCall, type FindTool, type ToolCall } from './check.js';
import { permissionsOf } from './permissions.js';
import { findTool } from '../tools/index.js';

/**
 * A tool call as the loop sees it: what it needs to authorise and run the call, never its whole
 * input (a `write` of a 3 MiB file stays in the store). Every field is bounded.
 */
export interface PlannedToolCall {
  partId: string;
  callId: string;
  /** The tool's name, its case repaired. */
  tool: string;
  /** The call cannot run (unknown tool, invalid arguments, too big to check): its part says why. */
  rejected?: boolean;
  /** `bash · npm test`: the label people see, in the Temporal UI and when asked to approve. */
  title: string;
  permissions: PermissionRequest[];
  /** Stands for the call's input in the doom-loop guard: equal inputs, equal digests. */
  digest: string;
  task?: TaskCallPlan;
  batch?: BatchCallPlan;
  /** A call of an MCP server's tool. */
  mcp?: McpCallPlan;
}

/** What a `task` call's orchestration needs; its prompt is read from the call's part. */
export interface TaskCallPlan {
  description: string;
  subagent_type: string;
  session_id?: string;
  command?: string;
  /** A command's own model (commands only; the model cannot choose one). */
  model?: string;
  /** Return at once; the subagent works on after this run (`task` with `background: true`). */
  background?: boolean;
  promptPreview: string;
}

/** What a `batch` call's orchestration needs; its tasks are read from the call's part. */
export interface BatchCallPlan {
  taskCount: number;
  /** Every agent the call names, the default one included. */
  agents: string[];
  agent: string;
  concurrency?: number;
  retries?: number;
  background?: boolean;
}

/** Past this size, a call's permission data (a command line, paths) cannot travel through history. */
export const PLANNED_CALL_LIMIT = 16 * 1024;
const NAME_LIMIT = 100;
const TITLE_LIMIT = 200;

export interface PlanContext {
  /** The tools the agent was offered this step. */
  offered: readonly string[];
  /** The agent's rules: a call to a tool they hide gets the rule's error, not "unknown tool". */
  agentRules: Ruleset;
  directory: string;
  /** The user's global config folder (writing there asks `config`). */
  globalConfigDir?: string;
  digest(input: Record<string, unknown>): string;
  /** Finds the tools offered: Loom's own unless the run has MCP tools too. */
  find?: FindTool;
}

export type ToolCallCheck =
  | { ok: true; plan: PlannedToolCall; input: Record<string, unknown> }
  | { ok: false; plan: PlannedToolCall; error: string };

/** Checks a call the model made and plans it; a call the model got wrong gets the error it will see. */
export function planToolCall(call: ToolCall, context: PlanContext): ToolCallCheck {
  const find = context.find ?? findTool;
  const checked = checkToolCall(call, context.offered, find);
  if (!checked.ok) {
    const error = notOffered(call.tool, context, find) ?? checked.error;
    return { ok: false, plan: rejected(call), error };
  }
  const { input } = checked;
  const spec = find(checked.call.tool)!;
  const summary = spec.summarize(input as never);
  const plan: PlannedToolCall = {
    partId: call.partId,
    callId: call.callId,
    tool: spec.name,
    title: preview(spec.mcp && !summary ? spec.name : `${spec.name} · ${summary}`, TITLE_LIMIT),
    permissions: permissionsOf(spec, input, {
      directory: context.directory,
      ...(context.globalConfigDir ? { globalConfigDir: context.globalConfigDir } : {}),
    }),
    digest: context.digest(input),
    ...(spec.name === 'task' ? { task: taskPlan(input) } : {}),
    ...(spec.name === 'batch' ? { batch: batchPlan(input) } : {}),
    ...(spec.mcp ? { mcp: { ...spec.mcp, effect: spec.effect } } : {}),
  };
  return { ok: true, plan, input };
}

/** Refuses a call whose plan is too big to carry: the model is told how to do it another way. */
export function refuseOversized(check: ToolCallCheck): ToolCallCheck {
  if (!check.ok) return check;
  const size = JSON.stringify(check.plan).length;
  if (size <= PLANNED_CALL_LIMIT) return check;
  const what = check.plan.tool === 'bash' ? 'The command line is' : 'The paths and names of this call are';
  return {
    ok: false,
    plan: rejected({ partId: check.plan.partId, callId: check.plan.callId, tool: check.plan.tool }),
    error:
      `${what} ${Math.round(size / 1024)} KiB long; Loom checks at most ${PLANNED_CALL_LIMIT / 1024} KiB against the permission rules. ` +
      'Write long content to a file with the write tool (then run it, e.g. `bash script.sh`), or split the work into shorter calls.',
  };
}

function rejected(call: Pick<ToolCall, 'partId' | 'callId' | 'tool'>): PlannedToolCall {
  const tool = preview(call.tool, NAME_LIMIT);
  return { partId: call.partId, callId: call.callId, tool, rejected: true, title: tool, permissions: [], digest: '' };
}

function taskPlan(input: Record<string, unknown>): TaskCallPlan {
  const text = (key: string) => (typeof input[key] === 'string' ? preview(input[key], TITLE_LIMIT) : undefined);
  return {
    description: text('description') ?? '',
    subagent_type: text('subagent_type') ?? '',
    ...(text('session_id') ? { session_id: text('session_id') } : {}),
    ...(text('command') ? { command: text('command') } : {}),
    ...(input.background === true ? { background: true } : {}),
    promptPreview: preview(String(input.prompt ?? '')),
  };
}

function batchPlan(input: Record<string, unknown>): BatchCallPlan {
  const tasks = input.tasks as { agent?: string }[];
  const agent = typeof input.agent === 'string' ? input.agent : 'general';
  return {
    taskCount: tasks.length,
    agents: [...new Set([agent, ...tasks.flatMap((task) => (task.agent ? [task.agent] : []))])].map((name) =>
      preview(name, NAME_LIMIT),
    ),
    agent,
    ...(input.concurrency !== undefined ? { concurrency: input.concurrency as number } : {}),
    ...(input.retries !== undefined ? { retries: input.retries as number } : {}),
    ...(input.background !== undefined ? { background: input.background as boolean } : {}),
  };
}

/** Why a known tool was not offered: the agent's rules deny it, or (at the step limit) no tools are. */
function notOffered(tool: string, context: PlanContext, find: FindTool): string | undefined {
  const spec = find(tool) ?? find(tool.toLowerCase());
  if (!spec || context.offered.includes(spec.name)) return undefined;
  const permission = permissionOfTool(spec.name);
  if (evaluate(permission, '*', context.agentRules).action === 'deny') {
    return deniedMessage(context.agentRules.filter((rule) => wildcardMatch(permission, rule.permission)));
  }
  return `Tool "${spec.name}" is not available now. Available tools: ${context.offered.join(', ') || 'none'}`;
}
