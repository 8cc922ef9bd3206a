import { zeroTokens, type AssistantMessage } from '../../core/records/message.js';
import type { ModelStepInput } from '../../core/models/model-step.js';
import { dropRevertedMessages } from './reverted-messages.js';
import type { MessageRecords } from '../store/messages.js';
import type { SessionRecords } from '../store/sessions.js';

/**
 * When a message was first written; a retried activity keeps that time. (A message id sorts the
 * message into its session, but its time part is the run's start, not the message's.)
 */
export async function createdTime(store: MessageRecords, messageId: string): Promise<number> {
  return (await store.getMessage(messageId))?.time.created ?? Date.now();
}

/**
 * Writes (or rewrites) a user message, naming the stored prompt it came from, if any. A reverted
 * session's hidden messages go first.
 */
export async function saveUserMessageRow(
  store: MessageRecords & SessionRecords,
  input: { sessionId: string; messageId: string; agent: string; model: string; promptId?: string },
): Promise<void> {
  await dropRevertedMessages(store, input.sessionId, input.messageId);
  await store.saveMessage({
    id: input.messageId,
    sessionID: input.sessionId,
    role: 'user',
    agent: input.agent,
    model: input.model,
    time: { created: await createdTime(store, input.messageId) },
    ...(input.promptId ? { promptID: input.promptId } : {}),
  });
}

/** A step's place in the conversation: the assistant message it writes and the user message it answers. */
export type AssistantStep = Pick<
  ModelStepInput,
  'sessionId' | 'messageId' | 'parentMessageId' | 'agent' | 'model' | 'step'
>;

/** A step's assistant message as it opens: nothing spent yet; a retried step keeps its first time. */
export async function openingAssistantMessage(store: MessageRecords, step: AssistantStep): Promise<AssistantMessage> {
  return {
    id: step.messageId,
    sessionID: step.sessionId,
    role: 'assistant',
    parentID: step.parentMessageId,
    agent: step.agent,
    model: step.model,
    step: step.step,
    time: { created: await createdTime(store, step.messageId) },
    tokens: zeroTokens(),
    cost: 0,
  };
}
