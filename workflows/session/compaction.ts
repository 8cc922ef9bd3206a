import { ApplicationFailure, ActivityFailure } from '@temporalio/workflow';
import { CONTINUE_AFTER_COMPACTION, MEDIA_REMOVED_NOTE } from '../../core/models/compaction.js';
import { defaultModelRetry, type SessionRunInput } from '../../core/runs/run.js';
import { compactionCall, store } from '../activity-policies.js';
import { drawId } from './ids.js';
import { appendSyntheticPrompt } from './queued-prompts.js';
import { showProgress, type RunState } from './run-state.js';

/**
 * Compacts the session: a compaction request, then the hidden `compaction` agent's summary, from
 * which the model's view of the conversation starts from now on. After an automatic compaction
 * the loop continues with the user's last message replayed (when the context overflowed on it) or
 * a request to go on.
 */
export async function compact(
  input: SessionRunInput,
  state: RunState,
  options: { auto: boolean; overflow: boolean },
): Promise<void> {
  const config = state.config!;
  state.step++;
  state.phase = 'tools';
  state.lastCompactionStep = state.step;
  showProgress(state);
  const requestId = drawId(state, 'msg');
  await store.saveCompactionRequest({
    sessionId: input.sessionId,
    messageId: requestId,
    agent: config.agent.name,
    model: config.model,
    auto: options.auto,
    overflow: options.overflow,
  });
  state.userMessageId = requestId;
  state.assistantMessageId = drawId(state, 'msg');
  const summarize = compactionCall(input.modelRetry ?? defaultModelRetry, `compact · step ${state.step}`);
  const { replayPromptId } = await summarize({
    sessionId: input.sessionId,
    messageId: state.assistantMessageId,
    parentMessageId: requestId,
    model: config.model,
    directory: input.directory,
    step: state.step,
    overflow: options.overflow,
    workspaceConfigId: config.workspaceConfigId,
  });
  if (!options.auto) return;
  // The user's last message, stored by the activity, when there is one to replay.
  if (replayPromptId) return appendSyntheticPrompt(input, state, { promptId: replayPromptId });
  await appendSyntheticPrompt(input, state, {
    text: options.overflow ? `${MEDIA_REMOVED_NOTE}\n\n${CONTINUE_AFTER_COMPACTION}` : CONTINUE_AFTER_COMPACTION,
  });
}

/** Whether a model call failed because the conversation no longer fits the model's context. */
export function isContextOverflow(error: unknown): boolean {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure && cause.type === 'ContextOverflow';
}
