import type { SessionRunInput } from '../../core/runs/run.js';
import { store } from '../activity-policies.js';
import { drawId } from './ids.js';
import { appendSyntheticPrompt } from './queued-prompts.js';
import type { RunState } from './run-state.js';
import type { Slots } from './slots.js';
import { betweenSnapshots } from './step-snapshots.js';
import { runTaskCall } from './task-call.js';
import type { TaskCallPlan } from '../../core/tool-call/plan.js';

/** The synthetic prompt after a command's subtask, so the primary agent picks up its result. */
export const SUMMARIZE_SUBTASK = 'Summarize the task tool output above and continue with your task.';

/**
 * Runs a command's subtask as a step of its own: a `task` call Loom makes without asking the
 * model, recorded as a task tool part; then the request to summarise it, for the next step.
 */
export async function runSubtaskStep(input: SessionRunInput, state: RunState, slots: Slots): Promise<void> {
  const subtask = state.subtask!;
  state.subtask = undefined;
  const config = state.config!;
  state.assistantMessageId = drawId(state, 'msg');
  const callId = `subtask_${state.assistantMessageId}`;
  const taskInput: TaskCallPlan = {
    description: subtask.description,
    subagent_type: subtask.agent,
    command: subtask.command,
    model: subtask.model,
    promptPreview: subtask.promptPreview,
  };
  const { partId } = await store.openTaskStep({
    sessionId: input.sessionId,
    messageId: state.assistantMessageId,
    parentMessageId: state.userMessageId,
    agent: subtask.agent,
    model: subtask.model ?? config.model,
    step: state.step,
    callId,
    input: { description: subtask.description, subagent_type: subtask.agent, command: subtask.command },
    promptId: subtask.promptId,
  });
  const step = { messageId: state.assistantMessageId, changesFiles: true };
  await betweenSnapshots(input, state, step, () =>
    runTaskCall({ partId, callId, tool: 'task' }, taskInput, {
      sessionId: input.sessionId,
      directory: input.directory,
      host: input.host,
      config,
      slots,
      modelRetry: input.modelRetry,
      webUrl: input.webUrl,
      searchAttributes: input.searchAttributes,
      waiting: state.waiting,
    }),
  );
  await appendSyntheticPrompt(input, state, { text: SUMMARIZE_SUBTASK });
}
