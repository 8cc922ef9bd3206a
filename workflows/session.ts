import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { newId } from '../core/ids.js';
import { addTokens } from '../core/message.js';
import { defaultModelRetry, type RunConfig, type SessionRunInput, type SessionRunResult } from '../core/run.js';
import { permissionReplyUpdate, progressQuery, promptSignal } from './api.js';
import { modelCall, store } from './session/activities.js';
import { PermissionGate } from './session/permission-gate.js';
import { takePrompts } from './session/prompts.js';
import { describeFailure, initialState, showProgress, type RunState } from './session/run-state.js';
import { runSubtaskStep } from './session/subtask.js';
import { Slots } from './session/slots.js';
import { runToolCalls } from './session/tool-calls.js';

/**
 * One run of a session's loop, OpenCode's loop on Temporal: decide the agent and its rules, append
 * the prompt, call the model, run the tools it asked for (once their permissions allow), repeat
 * until it stops asking; then return its answer.
 */
export async function sessionWorkflow(runInput: SessionRunInput): Promise<SessionRunResult> {
  let input = runInput;
  const state = initialState(input);
  setHandler(promptSignal, ({ text }) => void state.queued.push(text));
  setHandler(progressQuery, () => ({
    sessionId: input.sessionId,
    agent: state.config?.agent.name ?? input.agent ?? '',
    model: state.config?.model ?? input.model ?? '',
    step: state.step,
    phase: state.phase,
    tokens: state.tokens,
    queued: state.queued.length,
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
    };
    state.queued.push(task.prompt);
  }

  if (state.queued.length === 0 && !input.carried) {
    throw ApplicationFailure.create({ type: 'NoPrompt', message: `Run of ${input.sessionId} started without a prompt`, nonRetryable: true });
  }

  try {
    state.config ??= await startSession(input);
    state.gate = new PermissionGate(state.config, { id: input.sessionId, agent: state.config.agent.name });
    const slots = new Slots(state.config.maxConcurrentSubagents);
    for (;;) {
      await takePrompts(input, state);
      const config = state.config;
      state.step++;
      if (state.subtask) {
        state.phase = 'tools';
        showProgress(state);
        await runSubtaskStep(input, state, slots);
        continue;
      }
      state.phase = 'model';
      state.assistantMessageId = newId('msg', Date.now(), Math.random);
      showProgress(state);
      // At its step limit the agent is told to answer, and offered no tools to do otherwise.
      const lastStep = config.agent.steps !== undefined && state.step >= config.agent.steps;
      const tools = lastStep ? [] : config.tools;
      const callModel = modelCall(input.modelRetry ?? defaultModelRetry, `llm ${config.model} · step ${state.step}`);
      const answer = await callModel({
        sessionId: input.sessionId,
        messageId: state.assistantMessageId,
        parentMessageId: state.userMessageId,
        agent: config.agent.name,
        model: config.model,
        step: state.step,
        directory: input.directory,
        tools,
        lastStep,
      });
      state.tokens = addTokens(state.tokens, answer.tokens);
      state.text = answer.text;
      state.finish = answer.finish;
      if (answer.toolCalls.length > 0) {
        state.phase = 'tools';
        showProgress(state);
        const { stopTurn } = await runToolCalls(answer.toolCalls, {
          sessionId: input.sessionId,
          messageId: state.assistantMessageId,
          directory: input.directory,
          model: config.model,
          offered: tools,
          gate: state.gate!,
          agentRules: config.agent.permission,
          recentCalls: state.recentCalls,
          doomLoopThreshold: config.doomLoopThreshold,
          task: { config, slots, modelRetry: input.modelRetry },
          bypassTaskAsk: state.bypassTaskAsk,
        });
        // A person rejected a call outright: the turn ends here, as in OpenCode.
        if (stopTurn && state.queued.length === 0) break;
      }
      // Some OpenAI-compatible servers report `stop` alongside tool calls: the calls decide.
      const wantsMore = answer.toolCalls.length > 0 || state.queued.length > 0;
      if (!wantsMore) break;
      if (workflowInfo().continueAsNewSuggested) await continueRunAsNew(input, state, config);
    }
    state.phase = 'done';
    await store.finishRun({ sessionId: input.sessionId, status: 'idle' });
    await condition(allHandlersFinished);
    const text = input.quietResult ? '' : state.text;
    return { sessionId: input.sessionId, status: 'completed', text, finish: state.finish, tokens: state.tokens, steps: state.step };
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() =>
        store.finishRun({
          sessionId: input.sessionId,
          status: 'cancelled',
          messageId: state.assistantMessageId,
          error: { name: 'MessageAbortedError', message: 'The run was cancelled' },
        }),
      );
      throw error;
    }
    const failure = describeFailure(error);
    if (!failure) throw error;
    await store.finishRun({ sessionId: input.sessionId, status: 'failed', messageId: state.assistantMessageId, error: failure });
    throw ApplicationFailure.create({ type: failure.name, message: failure.message, nonRetryable: true });
  }
}

/** Decides the run's agent, model and rules from the configuration, and opens the session. */
async function startSession(input: SessionRunInput): Promise<RunConfig> {
  const config = await store.prepareRun({
    sessionId: input.sessionId,
    parentId: input.parentId,
    directory: input.directory,
    agent: input.agent,
    model: input.model,
    sessionRules: input.sessionRules,
  });
  upsertMemo({ agent: config.agent.name, model: config.model });
  await store.openSession({
    sessionId: input.sessionId,
    parentId: input.parentId,
    title: input.title,
    agent: config.agent.name,
    model: config.model,
    directory: input.directory,
    permission: input.sessionRules,
    parentPartId: input.parentPartId,
  });
  return config;
}

async function continueRunAsNew(input: SessionRunInput, state: RunState, config: RunConfig): Promise<never> {
  await condition(allHandlersFinished);
  return continueAsNew<typeof sessionWorkflow>({
    ...input,
    prompt: undefined,
    carried: {
      step: state.step,
      tokens: state.tokens,
      queued: state.queued,
      userMessageId: state.userMessageId,
      config,
      recentCalls: state.recentCalls,
    },
  });
}
