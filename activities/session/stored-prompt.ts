import { ApplicationFailure } from '@temporalio/common';
import type { PromptRecords } from '../store/prompts.js';

/** A stored prompt's text. A prompt that is not there is a failure no retry can mend. */
export async function readPrompt(store: PromptRecords, promptId: string, sessionId?: string): Promise<string> {
  const prompt = await store.getPrompt(promptId);
  if (!prompt) {
    throw ApplicationFailure.create({
      type: 'PromptNotFound',
      message: `Prompt ${promptId}${sessionId ? ` of session ${sessionId}` : ''} is not in the session store: was it sent to another store?`,
      nonRetryable: true,
    });
  }
  return prompt.text;
}

/** Stores a prompt Loom writes itself (a command's expansion, a task's prompt), under an id derived from its source. */
export async function storePrompt(store: PromptRecords, id: string, text: string, sessionId?: string): Promise<void> {
  await store.savePrompt({ id, ...(sessionId ? { sessionID: sessionId } : {}), text, time: { created: Date.now() } });
}
