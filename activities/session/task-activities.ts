import type { ActivityDeps } from '../deps.js';
import { toolOutputDir } from '../process/paths.js';
import { taskSteps } from './task-progress.js';
import { lastText } from './last-text.js';
import { rootSessionOf } from './session-root.js';
import { storePrompt } from './stored-prompt.js';
import { setToolState, toolInputOf } from '../tools/running/tool-state.js';
import { truncateOutput } from '../tools/running/truncate.js';

/** The seeds' envelope: how a task result tells the model which session to continue. */
export function taskEnvelope(sessionId: string): string {
  return `<task_metadata>\nsession_id: ${sessionId}\n</task_metadata>`;
}

/** What a `task` call with `background: true` answers at once. */
export function backgroundStarted(sessionId: string): string {
  return `The subagent is working in the background, in session ${sessionId}. Go on with your work; call task_status with this session_id to see how it is doing and, once it is done, to get its answer (wait: true waits for it).`;
}

/** The store side of `task` calls, which the workflow itself orchestrates as child workflows. */
export function createTaskActivities({ store, dataDir }: ActivityDeps) {
  /** Whether a session exists, and whether it belongs to the caller's session tree. */
  async function lookupTaskSession(input: {
    sessionId: string;
    rootId: string;
  }): Promise<{ exists: boolean; inTree: boolean }> {
    if (!(await store.getSession(input.sessionId))) return { exists: false, inTree: false };
    return { exists: true, inTree: (await rootSessionOf(store, input.sessionId)) === input.rootId };
  }

  /**
   * Marks a task call running and links it to its subagent's session; stores the call's prompt as
   * that session's prompt (`promptId`).
   */
  async function startTaskCall(input: {
    partId: string;
    description: string;
    sessionId: string;
    model: string;
    promptId: string;
    /** Started with `background: true`: the call returns at once and the subagent works on. */
    background?: boolean;
  }) {
    const callInput = await toolInputOf(store, input.partId);
    await storePrompt(store, input.promptId, String(callInput.prompt ?? ''), input.sessionId);
    await setToolState(store, input.partId, {
      status: 'running',
      input: callInput,
      title: input.description,
      metadata: {
        sessionId: input.sessionId,
        model: input.model,
        summary: [],
        ...(input.background ? { background: true } : {}),
      },
      time: { start: Date.now() },
    });
  }

  /**
   * Writes a task call's result: the subagent's last text and the envelope with its session id,
   * or, when the subagent failed or was cancelled, an error that still names the session to resume.
   */
  async function finishTaskCall(input: {
    partId: string;
    description: string;
    sessionId: string;
    /** Said before the result, e.g. that a requested session did not exist. */
    note?: string;
    error?: string;
    canDelegate: boolean;
    /** The subagent was started in the background: the result says so instead of giving its answer. */
    background?: boolean;
  }): Promise<void> {
    const part = await store.getPart(input.partId);
    const start = part?.type === 'tool' && part.state.status === 'running' ? part.state.time.start : Date.now();
    const callInput = part?.type === 'tool' ? part.state.input : {};
    const summary = await taskSteps(store, input.sessionId);
    const metadata = { sessionId: input.sessionId, summary };
    const envelope = taskEnvelope(input.sessionId);
    if (input.error) {
      await setToolState(store, input.partId, {
        status: 'error',
        input: callInput,
        error: `${input.error}\n\n${envelope}`,
        metadata,
        time: { start, end: Date.now() },
      });
      return;
    }
    if (input.background) {
      await setToolState(store, input.partId, {
        status: 'completed',
        input: callInput,
        output: `${input.note ?? ''}${backgroundStarted(input.sessionId)}\n\n${envelope}`,
        title: input.description,
        metadata: { ...metadata, background: true },
        time: { start, end: Date.now() },
      });
      return;
    }
    const text = await lastText(store, input.sessionId);
    const cut = await truncateOutput(`${input.note ?? ''}${text}`, {
      dir: toolOutputDir(dataDir),
      name: input.partId,
      canDelegate: input.canDelegate,
    });
    await setToolState(store, input.partId, {
      status: 'completed',
      input: callInput,
      output: `${cut.output}\n\n${envelope}`,
      title: input.description,
      metadata: { ...metadata, truncated: cut.truncated, ...(cut.outputPath ? { outputPath: cut.outputPath } : {}) },
      time: { start, end: Date.now() },
    });
  }

  return { lookupTaskSession, startTaskCall, finishTaskCall };
}
