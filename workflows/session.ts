import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { isOverflow } from '../core/models/compaction.js';
import { preview } from '../core/records/prompt.js';
import type { CarriedState, RunConfig, SessionRunInput, SessionRunResult } from '../core/runs/run.js';
import { permissionReplyUpdate, progressQuery, promptSignal, waitingSignal } from './api.js';
import { store } from './activity-policies.js';
import { checkBudget } from './session/budget-check.js';
import { compact } from './session/compaction.js';
import { modelStep } from './session/model-step.js';
import { PermissionGate } from './session/permission-gate.js';
import { takePrompts } from './session/queued-prompts.js';
import { describeFailure, initialState, showProgress, type RunState } from './session/run-state.js';
import { RunDeadline } from './session/run-deadline.js';
import { runSubtaskStep } from './session/subtask.js';
import { cancelBackgroundChildren, promptQueue, reportToParent } from './session/background.js';
import { Slots } from './session/slots.js';
import { startSession } from './session/start.js';

/**
 * One run of a session's loop, OpenCode's loop on Temporal: decide the agent and its rules, append
 * the prompt, call the model, run the tools it asked for (once their permissions allow), repeat
 * until it stops asking; then return its answer.
 */
export async function sessionWorkflow(runInput: SessionRunInput): Promise<SessionRunResult> {
  let input = runInput;
  const state = initialState(input);
  setHandler(promptSignal, promptQueue(state.queued));
  setHandler(waitingSignal, (report) => state.waiting.childReported(report));
  setHandler(progressQuery, () => ({
    sessionId: input.sessionId,
    agent: state.config?.agent.name ?? input.agent ?? '',
    model: state.config?.model ?? input.model ?? '',
    step: state.step,
    phase: state.phase,
    tokens: state.tokens,
    queued: state.queued.length,
    ...(state.waitingForHost ? { waitingForHost: state.waitingForHost } : {}),
  }));
  setHandler(
    permissionReplyUpdate,
    (reply) => {
      const result = state.gate!.receiveReply(reply);
      showProgress(state);
      return result;
    },
    {
      validator: (reply) => {
        if (!state.gate) throw new Error(`Session ${input.sessionId} has no permission request waiting.`);
        state.gate.validateReply(reply);
      },
    },
  );

  if (input.batchTask && !input.carried) {
    // A batch task: the batch passed a reference; the prompt and its settings are in the store.
    const task = await store.loadBatchTask(input.batchTask);
    input = {
      ...input,
      agent: input.agent ?? task.agent ?? task.defaultAgent,
      model: input.model ?? task.model ?? task.defaultModel,
      title: input.title ?? task.description,
      timeoutMs: input.timeoutMs ?? task.timeoutMs,
    };
    state.queued.push({ promptId: task.promptId });
  }

  if (state.queued.length === 0 && !input.carried && !input.compact) {
    throw ApplicationFailure.create({
      type: 'NoPrompt',
      message: `Run of ${input.sessionId} started without a prompt`,
      nonRetryable: true,
    });
  }

  let titling: Promise<void> = Promise.resolve();
  const deadline = new RunDeadline(input);
  try {
    await deadline.run(async () => {
      if (!state.config) ({ config: state.config, titling } = await startSession(input, state, state.queued[0]));
      state.gate = new PermissionGate(
        state.config,
        { id: input.sessionId, agent: state.config.agent.name },
        state.waiting,
      );
      const slots = new Slots(state.config.maxConcurrentSubagents);
      const settings = state.config.compaction;
      // A session whose last step filled the model's context is compacted before it goes on.
      const full =
        !input.carried &&
        state.config.lastStepTokens &&
        settings &&
        isOverflow(state.config.lastStepTokens, state.config.limit, settings);
      if (full || input.compact) await compact(input, state, { auto: false, overflow: false });
      while (!input.compact) {
        await takePrompts(input, state);
        await checkBudget(input, state);
        if (state.compactNext) {
          const overflow = state.compactNext === 'overflow';
          state.compactNext = undefined;
          await compact(input, state, { auto: true, overflow });
          continue;
        }
        state.step++;
        if (state.subtask) {
          state.phase = 'tools';
          showProgress(state);
          await runSubtaskStep(input, state, slots);
          continue;
        }
        const { more } = await modelStep(input, state, slots);
        if (!more) break;
        if (workflowInfo().continueAsNewSuggested) {
          await titling;
          await continueRunAsNew(input, state, state.config, deadline);
        }
      }
    });
    state.phase = 'done';
    if (state.config!.compaction?.prune) await store.pruneSession({ sessionId: input.sessionId });
    await store.finishRun({ sessionId: input.sessionId, status: 'idle' });
    await reportToParent(input, 'completed');
    await state.waiting.end();
    await titling;
    await condition(allHandlersFinished);
    const text = input.quietResult ? '' : preview(state.text);
    return {
      sessionId: input.sessionId,
      status: 'completed',
      text,
      finish: state.finish,
      tokens: state.tokens,
      steps: state.step,
    };
  } catch (error) {
    if (isCancellation(error)) {
      // A run out of time is cancelled as any other, and ends failed: its parent carries on.
      const timedOut = deadline.timedOut && !CancellationScope.current().consideredCancelled;
      const agent = state.config?.agent.name ?? input.agent ?? '';
      await CancellationScope.nonCancellable(async () => {
        await store.finishRun({
          sessionId: input.sessionId,
          status: timedOut ? 'failed' : 'cancelled',
          messageId: state.assistantMessageId,
          error: timedOut ? deadline.error(agent) : { name: 'MessageAbortedError', message: 'The run was cancelled' },
        });
        await reportToParent(input, timedOut ? 'error' : 'cancelled');
        await state.waiting.end();
        // Background subagents outlive a run that ends, not one that is cancelled (from the Temporal UI too).
        await cancelBackgroundChildren(input.sessionId, state.backgroundChildren);
      });
      throw timedOut ? deadline.failure(agent) : error;
    }
    const failure = describeFailure(error);
    if (!failure) throw error;
    await store.finishRun({
      sessionId: input.sessionId,
      status: 'failed',
      messageId: state.assistantMessageId,
      error: failure,
    });
    await reportToParent(input, 'error');
    await state.waiting.end();
    throw ApplicationFailure.create({ type: failure.name, message: failure.message, nonRetryable: true });
  }
}

async function continueRunAsNew(
  input: SessionRunInput,
  state: RunState,
  config: RunConfig,
  deadline: RunDeadline,
): Promise<never> {
  await condition(allHandlersFinished);
  await state.waiting.idle();
  const waiting = state.waiting.carry();
  const carried: CarriedState = {
    step: state.step,
    tokens: state.tokens,
    queued: state.queued,
    userMessageId: state.userMessageId,
    ...(state.ids ? { ids: state.ids } : {}),
    config,
    recentCalls: state.recentCalls,
    ...(state.backgroundChildren.length ? { backgroundChildren: state.backgroundChildren } : {}),
    title: state.title,
    ...(waiting ? { waiting } : {}),
    ...deadline.carry(),
  };
  return continueAsNew<typeof sessionWorkflow>({ ...input, promptId: undefined, carried });
}
