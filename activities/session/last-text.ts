import type { MessageRecords } from '../store/messages.js';

/** The last text part of a session's last assistant message: its answer (OpenCode's task result). */
export async function lastText(store: MessageRecords, sessionId: string): Promise<string> {
  const messages = await store.messages(sessionId);
  const text = messages
    .findLast((message) => message.info.role === 'assistant')
    ?.parts.findLast((part) => part.type === 'text');
  return text?.type === 'text' ? text.text : '';
}

/** Every text part of a session's last assistant message, joined: the whole final answer of a run. */
export async function lastAnswer(store: MessageRecords, sessionId: string): Promise<string> {
  const messages = await store.messages(sessionId);
  const last = messages.findLast((message) => message.info.role === 'assistant');
  return (last?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** A session's last answer and, when its last assistant message failed, how (`Name: message`); one read. */
export async function lastOutcome(
  store: MessageRecords,
  sessionId: string,
): Promise<{ answer: string; error: string }> {
  const last = (await store.messages(sessionId)).findLast((message) => message.info.role === 'assistant');
  const answer = (last?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
  const error =
    last?.info.role === 'assistant' && last.info.error ? `${last.info.error.name}: ${last.info.error.message}` : '';
  return { answer, error };
}
