import type { SessionStore } from './store/store.js';

/** The last text part of a session's last assistant message: its answer (OpenCode's task result). */
export async function lastText(store: SessionStore, sessionId: string): Promise<string> {
  const messages = await store.messages(sessionId);
  const text = messages.findLast((message) => message.info.role === 'assistant')?.parts.findLast((part) => part.type === 'text');
  return text?.type === 'text' ? text.text : '';
}

/** Every text part of a session's last assistant message, joined: the whole final answer of a run. */
export async function lastAnswer(store: SessionStore, sessionId: string): Promise<string> {
  const messages = await store.messages(sessionId);
  const last = messages.findLast((message) => message.info.role === 'assistant');
  return (last?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}
