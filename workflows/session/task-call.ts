import {
  CancellationScope,
  ParentClosePolicy,
  ChildWorkflowCancellationType,
  isCancellation,
  metricMeter,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { derivedId } from '../../core/records/ids.js';
import { METRIC, TOOL_CALLS_DESCRIPTION } from '../../core/runs/metric-names.js';
import type { PermissionRule, Ruleset } from '../../core/rules/permission.js';
import {
  RUN_TIMED_OUT,
  type ModelRetry,
  type RunConfig,
  type SessionRunInput,
  type SessionRunResult,
  type SubagentInfo,
} from '../../core/runs/run.js';
import {
  AgentAttribute,
  ParentSessionAttribute,
  RootSessionAttribute,
  withSearchAttributes,
} from '../../core/runs/search-attributes.js';
import { innermostCause } from '../../core/text/error-message.js';
import { backgroundPriority } from '../../core/runs/task-priority.js';
import { escapeMarkdown, escapeMarkdownInline } from '../../core/text/markdown-escape.js';
import type { ToolCall } from '../../core/tool-call/check.js';
import type { TaskCallPlan } from '../../core/tool-call/plan.js';
import { sessionPageUrl, webLinkDetails } from '../../core/runs/web-links.js';
import { SESSION_WORKFLOW_TYPE } from '../api.js';
import { inWorkflowSpan, type WorkflowSpan } from '../tracing.js';
import { callStore } from '../activity-policies.js';
import { taskTimedOut } from './run-deadline.js';
import type { Slots } from './slots.js';
import type { WaitingBoard } from './waiting.js';

/** Which call: its part (where its input and result live) and the model's call id. */
export type CallRef = Pick<ToolCall, 'partId' | 'callId' | 'tool'>;

export interface TaskContext {
  sessionId: string;
  directory: string;
  /** The workspace's host: subagents work in their parent's workspace. */
  host: string;
  config: RunConfig;
  slots: Slots;
  modelRetry?: ModelRetry;
  /** Where `loom serve`'s web view is (children link to their pages too). */
  webUrl?: string;
  /** `false`: the namespace lacks Loom's search attributes (see `SessionRunInput`). */
  searchAttributes?: false;
  /** The run's list of background subagents, which a cancelled run cancels. */
  backgroundChildren?: string[];
  /** What waits in the run's subtree: a subagent that ended waits no more. */
  waiting?: WaitingBoard;
}

/**
 * A `task` call: a run of `sessionWorkflow` as a child workflow whose id is the subagent's session
 * id, so the subagent can be resumed by that id later. The call's part shows the child's progress
 * and ends with its answer and session id, or an error that still names the session.
 */
export function runTaskCall(call: CallRef, input: TaskCallPlan, context: TaskContext): Promise<void> {
  const attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': call.tool,
    'gen_ai.tool.call.id': call.callId,
    'gen_ai.conversation.id': context.sessionId,
    'loom.session.id': context.sessionId,
    'loom.part.id': call.partId,
    'loom.subagent.agent': input.subagent_type,
  };
  let failed = false;
  const done = inWorkflowSpan(`execute_tool ${call.tool}`, attributes, (span) =>
    taskCall(call, input, context, {
      setAttribute: (key, value) => span.setAttribute(key, value),
      fail: (message) => {
        failed = true;
        span.fail(message);
      },
    }),
  );
  // Counted beside the promise the caller awaits, not in its chain: the caller resumes exactly when it did before.
  done.then(
    () => countToolCall(call.tool, failed ? 'error' : 'completed'),
    (error: unknown) => countToolCall(call.tool, isCancellation(error) ? 'cancelled' : 'error'),
  );
  return done;
}

/** The task call in the workers' metrics, as tool activities count theirs (never during replay). */
function countToolCall(tool: string, outcome: 'completed' | 'error' | 'cancelled'): void {
  metricMeter.createCounter(METRIC.toolCalls, 'calls', TOOL_CALLS_DESCRIPTION).add(1, { tool, outcome });
}

async function taskCall(call: CallRef, input: TaskCallPlan, context: TaskContext, span: WorkflowSpan): Promise<void> {
  const { config } = context;
  const fail = (error: string) => {
    span.fail(error);
    return callStore.failToolCall({ partId: call.partId, error });
  };
  if (config.depth >= config.subagentDepth) {
    return fail(
      `Subagent depth limit reached (${config.subagentDepth}). Increase "subagent_depth" to allow nested subagents.`,
    );
  }
  const agent = config.subagents.find((candidate) => candidate.name === input.subagent_type);
  if (!agent) return fail(`Unknown agent type: ${input.subagent_type} is not a valid agent type`);

  // Derived from the call: task calls run concurrently, so drawing ids at random here would depend
  // on the order their awaits resolved, which replay need not repeat.
  let sessionId = derivedId('ses', call.partId);
  let note = '';
  if (input.session_id) {
    const found = await callStore.lookupTaskSession({ sessionId: input.session_id, rootId: config.rootId });
    if (found.exists && !found.inTree) {
      return fail(
        `Session ${input.session_id} is not part of this session's tree: a task can only continue sessions of its own subagents.`,
      );
    }
    if (found.exists) sessionId = input.session_id;
    else note = `(No session ${input.session_id} exists, so this task started a new session: ${sessionId}.)\n\n`;
  }

  span.setAttribute('loom.subagent.session.id', sessionId);
  await context.slots.acquire();
  try {
    const model = input.model ?? agent.model ?? config.model;
    // The child's prompt: copied from the call's part by startTaskCall.
    const promptId = derivedId('prm', call.partId);
    const record = { partId: call.partId, description: input.description, sessionId };
    const background = input.background === true;
    await callStore.startTaskCall({
      ...record,
      model,
      promptId,
      ...(background ? { background } : {}),
    });
    const child: SessionRunInput = {
      sessionId,
      parentId: context.sessionId,
      parentPartId: call.partId,
      directory: context.directory,
      host: context.host,
      agent: agent.name,
      model,
      promptId,
      // The title says so wherever the session is shown (loom tree, loom show, the web view).
      title: `${input.description} (@${agent.name} subagent${background ? ', background' : ''})`,
      sessionRules: childRules(config, agent),
      modelRetry: context.modelRetry,
      ...(context.webUrl ? { webUrl: context.webUrl } : {}),
      searchAttributes: context.searchAttributes,
      ...(background ? { deliverTo: { sessionId: context.sessionId, partId: call.partId } } : {}),
      ...(agent.timeout ? { timeoutMs: agent.timeout } : {}),
    };
    let handle;
    try {
      handle = await startChild<(input: SessionRunInput) => Promise<SessionRunResult>>(SESSION_WORKFLOW_TYPE, {
        workflowId: sessionId,
        args: [child],
        // A background subagent outlives this run: `loom cancel` of the session cancels it (see cancelSession).
        cancellationType: background
          ? ChildWorkflowCancellationType.ABANDON
          : ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        parentClosePolicy: background ? ParentClosePolicy.ABANDON : ParentClosePolicy.REQUEST_CANCEL,
        staticSummary: `${background ? 'background · ' : ''}${agent.name} · ${escapeMarkdownInline(input.description)}`,
        staticDetails: `**Prompt**\n\n${escapeMarkdown(input.promptPreview)}${webLinkDetails(context.webUrl && sessionPageUrl(context.webUrl, sessionId))}`,
        ...withSearchAttributes(context.searchAttributes, [
          { key: AgentAttribute, value: agent.name },
          { key: RootSessionAttribute, value: config.rootId },
          { key: ParentSessionAttribute, value: context.sessionId },
        ]),
        // A foreground subagent inherits this run's priority: its parent waits on it.
        ...(background ? { priority: backgroundPriority(workflowInfo().priority) } : {}),
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      return await callStore.finishTaskCall({
        ...record,
        error: `Session ${sessionId} is busy: its current run has not finished. Wait for it, or start a new task without session_id.`,
        canDelegate: true,
      });
    }
    if (background) {
      if (!context.backgroundChildren?.includes(sessionId)) context.backgroundChildren?.push(sessionId);
      return await callStore.finishTaskCall({ ...record, note, background, canDelegate: true });
    }
    try {
      await handle.result();
      await callStore.finishTaskCall({ ...record, note, canDelegate: config.tools.includes('task') });
    } catch (error) {
      // Our own run being cancelled cancels the child too: that is not the task's failure to report.
      if (isCancellation(error) && CancellationScope.current().consideredCancelled) throw error;
      const outcome = isCancellation(error) ? 'Task cancelled' : `Task failed: ${failureMessage(error)}`;
      span.fail(outcome);
      await callStore.finishTaskCall({
        ...record,
        error:
          failureType(error) === RUN_TIMED_OUT
            ? taskTimedOut(agent.name, agent.timeout, sessionId)
            : `${outcome}. Continue it with session_id ${sessionId}.`,
        canDelegate: true,
      });
    } finally {
      context.waiting?.childEnded(sessionId);
    }
  } finally {
    context.slots.release();
  }
}

/**
 * The rules a parent gives its subagent's session: every deny of its own (so a `plan` session
 * cannot edit through a subagent), no todo list, no further delegation unless the subagent's
 * agent names `task` and the depth allows, and none of the primary-only tools.
 */
export function childRules(config: RunConfig, agent: SubagentInfo): Ruleset {
  const deny = (permission: string): PermissionRule => ({ permission, pattern: '*', action: 'deny' });
  const inherited = [...config.agent.permission, ...config.sessionRules].filter((rule) => rule.action === 'deny');
  const mayDelegate = agent.hasTaskRule && config.depth + 1 < config.subagentDepth;
  return [
    ...inherited,
    deny('todowrite'),
    deny('todoread'),
    ...(mayDelegate ? [] : [deny('task')]),
    ...config.primaryTools.map(deny),
  ];
}

function failureMessage(error: unknown): string {
  return innermost(error)?.message ?? String(error);
}

function failureType(error: unknown): string | undefined {
  return innermost(error)?.type;
}

function innermost(error: unknown): { message?: string; type?: string } | undefined {
  return innermostCause(error) as { message?: string; type?: string } | undefined;
}
