import { addTokens } from '../../core/records/tokens.js';
import { isOverflow } from '../../core/models/compaction.js';
import { defaultModelRetry, type SessionRunInput } from '../../core/runs/run.js';
import { modelCall } from '../activity-policies.js';
import { isContextOverflow } from './compaction.js';
import { drawId } from './ids.js';
import { placementOf, showProgress, type RunState } from './run-state.js';
import type { Slots } from './slots.js';
import { betweenSnapshots } from './step-snapshots.js';
import { mayChangeFiles, runToolCalls } from './tool-calls.js';

/**
 * One step of the loop: a model call, then the tool calls it asked for. Returns whether the loop
 * goes on; a full context (or a call that failed on one) leaves a compaction for the next step.
 */
export async function modelStep(input: SessionRunInput, state: RunState, slots: Slots): Promise<{ more: boolean }> {
  const config = state.config!;
  state.phase = 'model';
  state.assistantMessageId = drawId(state, 'msg');
  showProgress(state);
  // At its step limit the agent is told to answer, and offered no tools to do otherwise.
  const lastStep = config.agent.steps !== undefined && state.step >= config.agent.steps;
  const tools = lastStep ? [] : config.tools;
  const callModel = modelCall(input.modelRetry ?? defaultModelRetry, `llm ${config.model} · step ${state.step}`);
  let answer;
  try {
    answer = await callModel({
      sessionId: input.sessionId,
      messageId: state.assistantMessageId,
      parentMessageId: state.userMessageId,
      agent: config.agent.name,
      model: config.model,
      step: state.step,
      directory: input.directory,
      tools,
      lastStep,
      workspaceConfigId: config.workspaceConfigId,
    });
  } catch (error) {
    // The conversation outgrew the model: compact and try again, unless a compaction just failed to help.
    const justCompacted = state.lastCompactionStep !== undefined && state.lastCompactionStep >= state.step - 1;
    if (!isContextOverflow(error) || !config.compaction?.auto || justCompacted) throw error;
    state.compactNext = 'overflow';
    return { more: true };
  }
  state.tokens = addTokens(state.tokens, answer.tokens);
  state.text = answer.text;
  state.finish = answer.finish;
  const { calls } = answer;
  if (calls.length > 0) {
    state.phase = 'tools';
    showProgress(state);
    const messageId = state.assistantMessageId!;
    const step = { messageId, changesFiles: mayChangeFiles(calls) };
    const { stopTurn } = await betweenSnapshots(input, state, step, () =>
      runToolCalls(calls, {
        sessionId: input.sessionId,
        messageId,
        directory: input.directory,
        model: config.model,
        offered: tools,
        gate: state.gate!,
        placement: placementOf(input, state),
        hostWatch: { host: input.host, state },
        recentCalls: state.recentCalls,
        doomLoopThreshold: config.doomLoopThreshold,
        task: {
          config,
          slots,
          modelRetry: input.modelRetry,
          webUrl: input.webUrl,
          searchAttributes: input.searchAttributes,
          backgroundChildren: state.backgroundChildren,
          waiting: state.waiting,
        },
        bypassTaskAsk: state.bypassTaskAsk,
      }),
    );
    // A person rejected a call outright: the turn ends here, as in OpenCode.
    if (stopTurn && state.queued.length === 0) return { more: false };
  }
  // Some OpenAI-compatible servers report `stop` alongside tool calls: the calls decide.
  const more = calls.length > 0 || state.queued.length > 0;
  if (more && config.compaction && isOverflow(answer.tokens, config.limit, config.compaction))
    state.compactNext = 'full';
  return { more };
}
