import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { findAgent } from '../core/agents/index.js';
import { newId } from '../core/ids.js';
import { addTokens, zeroTokens, type MessageError } from '../core/message.js';
import { defaultModelRetry, type RunProgress, type SessionRunInput, type SessionRunResult } from '../core/run.js';
import { progressQuery, promptSignal } from './api.js';
import { modelCall, store } from './session/activities.js';
import { messageOf, runToolCalls } from './session/tool-calls.js';

/** What steers one run; everything else lives in the session store. */
interface RunState {
  step: number;
  phase: RunProgress['phase'];
  tokens: RunProgress['tokens'];
  /** Prompts waiting for the next step. */
  queued: string[];
  userMessageId: string;
  assistantMessageId?: string;
  text: string;
  finish: string;
}

/**
 * One run of a session's loop, OpenCode's loop on Temporal: append the prompt, call the model,
 * run the tools it asked for, repeat until it stops asking; then return its answer.
 */
export async function sessionWorkflow(input: SessionRunInput): Promise<SessionRunResult> {
  const agent = resolveAgent(input.agent);
  const state: RunState = {
    step: input.carried?.step ?? 0,
    phase: 'starting',
    tokens: input.carried?.tokens ?? zeroTokens(),
    queued: [...(input.carried?.queued ?? []), ...(input.prompt !== undefined ? [input.prompt] : [])],
    userMessageId: input.carried?.userMessageId ?? '',
    text: '',
    finish: 'unknown',
  };
  setHandler(promptSignal, ({ text }) => void state.queued.push(text));
  setHandler(progressQuery, () => ({
    sessionId: input.sessionId,
    agent: input.agent,
    model: input.model,
    step: state.step,
    phase: state.phase,
    tokens: state.tokens,
    queued: state.queued.length,
  }));

  if (state.queued.length === 0 && !input.carried) {
    throw ApplicationFailure.create({ type: 'NoPrompt', message: `Run of ${input.sessionId} started without a prompt`, nonRetryable: true });
  }

  try {
    if (!input.carried) {
      await store.openSession({
        sessionId: input.sessionId,
        parentId: input.parentId,
        title: input.title,
        agent: input.agent,
        model: input.model,
        directory: input.directory,
      });
    }
    for (;;) {
      await appendQueuedPrompts(input, state);
      state.step++;
      state.phase = 'model';
      state.assistantMessageId = newId('msg', Date.now(), Math.random);
      showProgress(input, state);
      const callModel = modelCall(input.modelRetry ?? defaultModelRetry, `llm ${input.model} · step ${state.step}`);
      const answer = await callModel({
        sessionId: input.sessionId,
        messageId: state.assistantMessageId,
        parentMessageId: state.userMessageId,
        agent: input.agent,
        model: input.model,
        step: state.step,
        directory: input.directory,
        tools: agent.tools,
      });
      state.tokens = addTokens(state.tokens, answer.tokens);
      state.text = answer.text;
      state.finish = answer.finish;
      if (answer.toolCalls.length > 0) {
        state.phase = 'tools';
        showProgress(input, state);
        await runToolCalls(answer.toolCalls, {
          sessionId: input.sessionId,
          messageId: state.assistantMessageId,
          directory: input.directory,
          model: input.model,
          offered: agent.tools,
        });
      }
      // Some OpenAI-compatible servers report `stop` alongside tool calls: the calls decide.
      const wantsMore = answer.toolCalls.length > 0 || state.queued.length > 0;
      if (!wantsMore) break;
      if (workflowInfo().continueAsNewSuggested) await continueRunAsNew(input, state);
    }
    state.phase = 'done';
    await store.finishRun({ sessionId: input.sessionId, status: 'idle' });
    await condition(allHandlersFinished);
    return {
      sessionId: input.sessionId,
      status: 'completed',
      text: state.text,
      finish: state.finish,
      tokens: state.tokens,
      steps: state.step,
    };
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
    await store.finishRun({
      sessionId: input.sessionId,
      status: 'failed',
      messageId: state.assistantMessageId,
      error: failure,
    });
    throw ApplicationFailure.create({ type: failure.name, message: failure.message, nonRetryable: true });
  }
}

function resolveAgent(name: string) {
  try {
    return findAgent(name);
  } catch (error) {
    throw ApplicationFailure.create({ type: 'UnknownAgent', message: messageOf(error), nonRetryable: true });
  }
}

async function appendQueuedPrompts(input: SessionRunInput, state: RunState): Promise<void> {
  while (state.queued.length > 0) {
    const text = state.queued.shift()!;
    state.userMessageId = newId('msg', Date.now(), Math.random);
    await store.saveUserMessage({
      sessionId: input.sessionId,
      messageId: state.userMessageId,
      agent: input.agent,
      model: input.model,
      text,
    });
  }
}

async function continueRunAsNew(input: SessionRunInput, state: RunState): Promise<never> {
  await condition(allHandlersFinished);
  return continueAsNew<typeof sessionWorkflow>({
    ...input,
    prompt: undefined,
    carried: { step: state.step, tokens: state.tokens, queued: state.queued, userMessageId: state.userMessageId },
  });
}

/** The failure to record on the assistant message, or undefined for errors that are bugs. */
function describeFailure(error: unknown): MessageError | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) {
    return { name: cause.type ?? 'Error', message: cause.message, retryable: !cause.nonRetryable };
  }
  if (error instanceof ActivityFailure) return { name: 'ActivityFailure', message: messageOf(error) };
  return undefined;
}

/** The run's current details in the Temporal UI. */
function showProgress(input: SessionRunInput, state: RunState): void {
  const total = state.tokens.input + state.tokens.output + state.tokens.cache.read;
  setCurrentDetails(
    `**${input.agent}** · ${input.model}\n\nstep ${state.step} · ${state.phase} · ${total} tokens` +
      (state.queued.length ? ` · ${state.queued.length} queued` : ''),
  );
}
