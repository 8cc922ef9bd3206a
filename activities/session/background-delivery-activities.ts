import { Context } from '@temporalio/activity';
import { PROMPT_SIGNAL, SESSION_WORKFLOW_TYPE, type SessionRunInput } from '../../core/runs/run.js';
import { RootSessionAttribute, withSearchAttributes } from '../../core/runs/search-attributes.js';
import type { ActivityDeps } from '../deps.js';
import { storedHostOr } from '../hosts/host-id.js';
import { lastOutcome } from './last-text.js';
import { rootSessionOf } from './session-root.js';
import { taskEnvelope } from './task-activities.js';

/** How a background subagent's run ended, as its parent is told. */
export type BackgroundOutcome = 'completed' | 'error' | 'cancelled';

/** How often a report looks whether the parent has taken it. */
const TAKEN_POLL_MS = 500;
/** How many runs of the parent a report starts at most. */
const MAX_SENDS = 3;

const ENDED: Record<BackgroundOutcome, string> = { completed: 'finished', error: 'failed', cancelled: 'was cancelled' };

/**
 * Background subagents report back: when such a run ends, its outcome goes to the parent session
 * as a prompt, queued into the parent's open run or starting a new one (the parent wakes up), as
 * `loom resume` sends a prompt.
 */
export function createBackgroundDeliveryActivities({ store, env, hostId }: ActivityDeps) {
  /**
   * Exactly once per child run: the prompt id comes from the child's run, a parent that already
   * holds a message of it is not told again (a retry after the signal went through), and a run
   * ignores a prompt id it has already queued (a retry while it has not written it yet).
   */
  async function notifyParent(input: {
    parentId: string;
    childId: string;
    /** The prompt's id, decided by the child's run. */
    deliveryId: string;
    outcome: BackgroundOutcome;
    taskQueue: string;
    /** `false`: the namespace lacks Loom's search attributes (see `SessionRunInput`). */
    searchAttributes?: false;
  }): Promise<{ delivered: boolean; reason?: string }> {
    const parent = await store.getSession(input.parentId);
    if (!parent) return { delivered: false, reason: `parent session ${input.parentId} is gone` };
    // Someone cancelled the parent, or cancelled the work while the parent rested: waking it would undo that.
    if (parent.status === 'cancelled') return { delivered: false, reason: `parent session ${parent.id} was cancelled` };
    if (input.outcome === 'cancelled' && parent.status !== 'busy')
      return { delivered: false, reason: 'cancelled while the parent was not running' };
    // Fixed before the check below, so nothing the parent writes afterwards escapes `taken`.
    let cursor = (await store.changes(input.parentId, Number.MAX_SAFE_INTEGER)).cursor;
    const messages = await store.messages(input.parentId);
    if (messages.some((message) => message.info.role === 'user' && message.info.promptID === input.deliveryId)) {
      return { delivered: false, reason: 'delivered already' };
    }
    await store.savePrompt({
      id: input.deliveryId,
      sessionID: parent.id,
      text: await outcomeText(input.childId, input.outcome),
      time: { created: Date.now() },
    });
    // A parent that is itself a background subagent reports what its new run found to its own parent.
    const deliverTo = parent.parentID ? await backgroundTaskOf(parent.parentID, parent.id) : undefined;
    const run: SessionRunInput = {
      sessionId: parent.id,
      directory: parent.directory,
      // A parent of a Loom before hosts ran its tools on any worker: this worker's host is where it did.
      host: storedHostOr(parent.host, hostId, env),
      ...(parent.parentID ? { parentId: parent.parentID } : {}),
      ...(deliverTo ? { deliverTo } : {}),
      searchAttributes: input.searchAttributes,
    };
    const context = Context.current();
    const { client } = context;
    const rootId = await rootSessionOf(store, parent.id);
    const send = async () =>
      (
        await client.workflow.signalWithStart(SESSION_WORKFLOW_TYPE, {
          workflowId: parent.id,
          taskQueue: input.taskQueue,
          args: [run],
          signal: PROMPT_SIGNAL,
          signalArgs: [{ promptId: input.deliveryId, synthetic: true }],
          staticSummary: `${parent.agent} · ${parent.title}`,
          staticDetails: `**Background subagent ${input.childId} ${ENDED[input.outcome]}**`,
          ...withSearchAttributes(input.searchAttributes, [{ key: RootSessionAttribute, value: rootId }]),
        })
      ).signaledRunId;
    // Only what the parent wrote since the cursor is read each time.
    const taken = async () => {
      const changes = await store.changes(input.parentId, cursor);
      cursor = changes.cursor;
      return changes.messages.some((message) => message.role === 'user' && message.promptID === input.deliveryId);
    };
    // A run that was finishing when the signal came closes without taking it: then the prompt
    // starts the next run, as `loom resume` sends a prompt again.
    let runId = await send();
    for (let sent = 1; ;) {
      context.heartbeat();
      if (await taken()) return { delivered: true };
      const { status } = await client.workflow.getHandle(parent.id, runId).describe();
      if (status.name !== 'RUNNING') {
        if (await taken()) return { delivered: true };
        // A parent whose runs end without taking it (each fails at once, say) is not woken forever.
        if (sent >= MAX_SENDS)
          return { delivered: false, reason: `${sent} runs of ${parent.id} ended without taking it` };
        runId = await send();
        sent++;
        continue;
      }
      await context.sleep(TAKEN_POLL_MS);
    }
  }

  /** The background `task` call of `parentId` that started `childId`, if that is how it started. */
  async function backgroundTaskOf(parentId: string, childId: string): Promise<SessionRunInput['deliverTo']> {
    const partId = (await backgroundTasks(parentId)).get(childId);
    return partId ? { sessionId: parentId, partId } : undefined;
  }

  /** A session's background subagents by session id, each with the part of the task call that started it. */
  async function backgroundTasks(sessionId: string): Promise<Map<string, string>> {
    const started = new Map<string, string>();
    for (const message of await store.messages(sessionId)) {
      for (const part of message.parts) {
        if (part.type !== 'tool' || part.tool !== 'task' || part.state.status !== 'completed') continue;
        const metadata = part.state.metadata as { background?: boolean; sessionId?: string };
        if (metadata.background === true && metadata.sessionId) started.set(metadata.sessionId, part.id);
      }
    }
    return started;
  }

  /**
   * The background subagents of a session still working, whichever of its runs started them: a
   * cancelled run cancels them all, as `loom cancel` does.
   */
  async function busyBackgroundChildren(input: { sessionId: string }): Promise<string[]> {
    const started = await backgroundTasks(input.sessionId);
    if (started.size === 0) return [];
    const children = await store.children(input.sessionId);
    return children.filter((child) => child.status === 'busy' && started.has(child.id)).map((child) => child.id);
  }

  /** What the parent reads: which subagent, how it ended, its answer (or error), and the envelope. */
  async function outcomeText(childId: string, outcome: BackgroundOutcome): Promise<string> {
    const child = await store.getSession(childId);
    const { answer, error } = await lastOutcome(store, childId);
    const body = outcome === 'completed' ? answer : [error, answer].filter(Boolean).join('\n\n');
    return [
      `The background subagent "${child?.title ?? childId}" ${ENDED[outcome]}.${outcome === 'completed' ? ' Its answer:' : ''}`,
      ...(body ? [body] : []),
      taskEnvelope(childId),
    ].join('\n\n');
  }

  return { notifyParent, busyBackgroundChildren };
}
