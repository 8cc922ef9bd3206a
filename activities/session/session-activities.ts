import type { Budget } from '../../core/runs/budget.js';
import type { MessageError } from '../../core/records/message.js';
import type { Part, ToolPart } from '../../core/records/part.js';
import type { PermissionRule } from '../../core/rules/permission.js';
import { defaultTitle, type Session, type SessionStatus } from '../../core/records/session.js';
import type { ActivityDeps } from '../deps.js';
import { projectOfCopy } from '../batch/isolated-project.js';
import { failToolPart, failedToolPart } from '../tools/running/tool-state.js';

export const ABORTED_TOOL_ERROR = 'Tool execution aborted';

/** Store writes the loop makes around model and tool calls. All idempotent. */
export function createSessionActivities({ store }: ActivityDeps) {
  /**
   * Creates the session, or marks an existing one busy under the agent and model of this run.
   * `created`: the session is new (or never answered and still unnamed), so the run gives it a title.
   */
  async function openSession(input: {
    sessionId: string;
    parentId?: string;
    title?: string;
    agent: string;
    model: string;
    directory: string;
    /** The host that holds the directory (a session stored without one gains it here). */
    host: string;
    /** A subagent's session: the rules its parent sets (replaced on every new task call). */
    permission?: PermissionRule[];
    parentPartId?: string;
    /** The budget of the session's tree from now on (see RunConfig.budget). */
    budget?: Budget;
  }): Promise<{ created: boolean; title: string }> {
    const now = Date.now();
    const existing = await store.getSession(input.sessionId);
    const links = {
      ...(input.permission ? { permission: input.permission } : {}),
      ...(input.parentPartId ? { parentPartID: input.parentPartId } : {}),
      host: input.host,
    };
    // A run in another folder (`loom resume --dir`, the session's own being gone) moves the session there.
    const moved = existing && existing.directory !== input.directory;
    const project = !existing || moved ? await projectOfCopy(store, input.directory) : existing.project;
    const session = existing
      ? {
          ...withoutError(existing),
          ...links,
          directory: input.directory,
          project,
          agent: input.agent,
          model: input.model,
          status: 'busy' as const,
          time: { ...existing.time, updated: now },
        }
      : { ...links, ...newSession(input, 'busy', now), ...(project ? { project } : {}) };
    await store.saveSession(session);
    if (input.budget) await store.setBudget(input.sessionId, input.budget);
    // A root session whose earlier runs never got an answer (a set-up mistake, fixed since) is as new: its run names it.
    const unnamed =
      existing &&
      !existing.parentID &&
      existing.title.startsWith('New session - ') &&
      !(await store.lastFinishedStep(existing.id));
    return { created: !existing || Boolean(unnamed), title: session.title };
  }

  /** A tool call that could not run (unknown tool, invalid arguments, infrastructure failure). */
  async function failToolCall(input: { partId: string; error: string }): Promise<void> {
    await failToolPart(store, input.partId, input.error);
  }

  /**
   * Records how a run ended. On cancellation or failure, tool calls still pending or running are
   * marked aborted, the error is kept on the assistant message, and permission requests still
   * waiting are withdrawn.
   */
  async function finishRun(input: {
    sessionId: string;
    status: SessionStatus;
    messageId?: string;
    error?: MessageError;
  }): Promise<void> {
    const now = Date.now();
    const message = input.messageId ? await store.getMessage(input.messageId) : undefined;
    if (message?.role === 'assistant' && input.error) {
      for (const part of (await store.parts(message.id)).filter(isUnfinishedTool)) {
        await store.savePart(failedToolPart(part, ABORTED_TOOL_ERROR, now));
      }
      await store.saveMessage({ ...message, error: input.error, time: { ...message.time, completed: now } });
    }
    // Requests still waiting can no longer be answered: the run that asked is over.
    for (const request of await store.permissionRequests({ status: 'pending' })) {
      if (request.sessionID !== input.sessionId) continue;
      await store.savePermissionRequest({ ...request, status: 'cancelled', time: { ...request.time, replied: now } });
    }
    const session = await store.getSession(input.sessionId);
    if (!session) return;
    if (input.status === 'failed' && input.error && message?.role !== 'assistant') {
      // Nothing on a message says why: the session does.
      await store.saveSession({
        ...session,
        status: 'failed',
        error: { name: input.error.name, message: input.error.message },
        time: { ...session.time, updated: now },
      });
    } else {
      await store.setSessionStatus(input.sessionId, input.status, now);
    }
  }

  return { openSession, failToolCall, finishRun };
}

/** A session's first record: a default title until one is given or generated. */
export function newSession(
  input: { sessionId: string; parentId?: string; title?: string; agent: string; model: string; directory: string },
  status: SessionStatus,
  now: number,
): Session {
  return {
    id: input.sessionId,
    ...(input.parentId ? { parentID: input.parentId } : {}),
    title: input.title ?? defaultTitle(input.parentId !== undefined, now),
    agent: input.agent,
    model: input.model,
    directory: input.directory,
    status,
    time: { created: now, updated: now },
  };
}

function withoutError(session: Session): Session {
  const { error: _error, ...rest } = session;
  return rest;
}

function isUnfinishedTool(part: Part): part is ToolPart {
  return part.type === 'tool' && (part.state.status === 'pending' || part.state.status === 'running');
}
