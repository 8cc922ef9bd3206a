import type { z } from 'zod';
import type { Session } from '../../core/records/session.js';
import { TASK_STATUS_DEFAULT_WAIT_MS, type taskStatus as taskStatusSpec } from '../../core/tools/task-status.js';
import { lastOutcome } from '../session/last-text.js';
import { rootSessionOf } from '../session/session-root.js';
import { taskEnvelope } from '../session/task-activities.js';
import { ToolError, type ToolHandler } from './running/tool-handler.js';

/** The longest one wait for a change lasts before the session is read again (a missed wake-up). */
const LOOK_AGAIN_MS = 2_000;

const STATE: Record<Session['status'], 'running' | 'completed' | 'error' | 'cancelled'> = {
  busy: 'running',
  idle: 'completed',
  failed: 'error',
  cancelled: 'cancelled',
};

/**
 * `task_status`: how a subagent of this session's tree is doing, from the store; with `wait`,
 * after it stops being busy or the wait runs out. A session of another tree is refused, as a
 * `task` call refuses to continue one.
 */
export const taskStatus: ToolHandler<z.infer<typeof taskStatusSpec.parameters>> = async (input, context) => {
  const { store } = context;
  const id = input.session_id;
  let session = await store.getSession(id);
  if (!session) throw new ToolError(`No session ${id}. Pass the session_id from a task result's <task_metadata>.`);
  if (id === context.sessionId)
    throw new ToolError(`Session ${id} is this session itself: task_status reports on subagents.`);
  if ((await rootSessionOf(store, id)) !== (await rootSessionOf(store, context.sessionId))) {
    throw new ToolError(
      `Session ${id} is not part of this session's tree: task_status reports only on its own subagents.`,
    );
  }
  if (input.wait && session.status === 'busy') {
    const deadline = Date.now() + (input.timeout_ms ?? TASK_STATUS_DEFAULT_WAIT_MS);
    let cursor = (await store.changes(id, Number.MAX_SAFE_INTEGER)).cursor;
    context.update({ title: `waiting for ${id}` });
    while (session.status === 'busy' && Date.now() < deadline && !context.abort.aborted) {
      await store.waitForChange(id, cursor, {
        timeoutMs: Math.min(LOOK_AGAIN_MS, deadline - Date.now()),
        signal: context.abort,
      });
      cursor = (await store.changes(id, cursor)).cursor;
      session = (await store.getSession(id)) ?? session;
    }
  }
  const state = STATE[session.status];
  const outcome = state === 'running' ? undefined : await lastOutcome(store, id);
  const answer = outcome ? outcome.answer || outcome.error : '';
  const lines = [
    `status: ${state}`,
    ...(state === 'running'
      ? ['The subagent is still working: call task_status again later, or with wait: true.']
      : []),
    ...(answer ? ['', answer] : []),
  ];
  return {
    title: `${session.title} · ${state}`,
    output: `${lines.join('\n')}\n\n${taskEnvelope(id)}`,
    metadata: { sessionId: id, status: state },
  };
};
