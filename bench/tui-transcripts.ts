import { newId, partId } from '../core/records/ids.js';
import type { Message } from '../core/records/message.js';
import type { Part } from '../core/records/part.js';
import type { SessionStore } from '../activities/store/store.js';
import { BENCH_MODEL } from './harness.js';

const ZERO_TOKENS = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };

/** Lines of the file a seeded `read` call returns. */
export const READ_OUTPUT = Array.from(
  { length: 20 },
  (_, line) => `${line + 1}: export const value${line} = ${line};`,
).join('\n');

/** What a seeded session's last answer says: the text that shows its transcript's bottom is on screen. */
export function lastAnswerOf(count: number): string {
  return `End of the ${count}-message transcript.`;
}

/** The `index`-th message's text, a prompt (even) or an answer (odd), of a seeded `count`-message session. */
export function seededText(index: number, count: number): string {
  if (index % 2 === 0) return `Question ${index / 2}: what does step ${index} change?`;
  if (index === count - 1) return lastAnswerOf(count);
  return `Step ${index} changes **the parser** and \`core/step-${index}.ts\`:\n\n- it reads the input once\n- it writes the answer in one go`;
}

/**
 * A finished session of `count` messages written straight to the store, as a long conversation
 * leaves it: prompts and answers in turn, each answer a few lines of markdown, every fifth one
 * after a `read` call of 20 lines. The last answer says `lastAnswerOf(count)`.
 */
export async function seedTranscript(store: SessionStore, count: number, directory: string): Promise<string> {
  const started = Date.now() - count * 1000;
  const sessionId = newId('ses', started, Math.random);
  await store.saveSession({
    id: sessionId,
    title: `A ${count}-message session`,
    agent: 'build',
    model: BENCH_MODEL,
    directory,
    status: 'idle',
    time: { created: started, updated: started + count * 1000 },
  });
  let prompt = '';
  for (let index = 0; index < count; index++) {
    const at = started + index * 1000;
    const id = newId('msg', at, Math.random);
    if (index % 2 === 0) {
      prompt = id;
      await store.saveMessage(userMessage(id, sessionId, at));
      await store.savePart(
        text(partId(id, 0), sessionId, id, `Question ${index / 2}: what does step ${index} change?`),
      );
      continue;
    }
    await store.saveMessage(assistantMessage(id, sessionId, prompt, at));
    const parts: Part[] = [];
    if (index % 10 === 1) parts.push(readCall(partId(id, 0), sessionId, id, at));
    parts.push(text(partId(id, parts.length), sessionId, id, seededText(index, count)));
    for (const part of parts) await store.savePart(part);
  }
  return sessionId;
}

function userMessage(id: string, sessionID: string, at: number): Message {
  return { id, sessionID, role: 'user', agent: 'build', model: BENCH_MODEL, time: { created: at } };
}

function assistantMessage(id: string, sessionID: string, parentID: string, at: number): Message {
  return {
    id,
    sessionID,
    role: 'assistant',
    parentID,
    step: 1,
    agent: 'build',
    model: BENCH_MODEL,
    finish: 'stop',
    tokens: ZERO_TOKENS,
    cost: 0,
    time: { created: at, completed: at + 500 },
  };
}

function text(id: string, sessionID: string, messageID: string, content: string): Part {
  return { id, sessionID, messageID, type: 'text', text: content };
}

function readCall(id: string, sessionID: string, messageID: string, at: number): Part {
  return {
    id,
    sessionID,
    messageID,
    type: 'tool',
    callID: `call_${messageID}`,
    tool: 'read',
    state: {
      status: 'completed',
      input: { filePath: 'src/values.ts' },
      output: READ_OUTPUT,
      title: 'src/values.ts',
      metadata: {},
      time: { start: at + 100, end: at + 110 },
    },
  };
}
