import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';

let env: LoomTestEnv;

const KiB = 1024;
const MiB = 1024 * KiB;
/** Content of a given size made of one marker, so a copy of it anywhere is easy to count. */
const filled = (marker: string, bytes: number) =>
  `${marker} `.repeat(Math.ceil(bytes / (marker.length + 1))).slice(0, bytes);

const WRITTEN = filled('written-content', 3 * MiB);
const READ = Array.from({ length: 20_000 }, (_, i) => `${i} read-content ${'r'.repeat(40)}`).join('\n'); // ~1 MiB
const TASK_PROMPT = `Summarise this. ${filled('task-prompt', 100 * KiB)}`;
const CHILD_ANSWER = filled('child-answer', 40 * KiB);
const ANSWER = filled('final-answer', 40 * KiB);

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'big-notes.txt': READ } });
  await env.worker();
});
afterAll(() => env?.close());

/** Every payload of a run's history, decoded: what Temporal stores and sends to every replay. */
async function decodedPayloads(workflowId: string): Promise<string[]> {
  const history = JSON.parse(historyToJSON(await env.client.workflow.getHandle(workflowId).fetchHistory()));
  const payloads: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    if (typeof record.data === 'string' && typeof record.metadata === 'object')
      payloads.push(Buffer.from(record.data, 'base64').toString('utf8'));
    Object.values(record).forEach(visit);
  };
  visit(history);
  return payloads;
}

/** How many characters of the marker's content a history holds. */
const copiedChars = (payloads: string[], marker: string) =>
  payloads.reduce((sum, payload) => sum + payload.split(marker).length - 1, 0) * (marker.length + 1);

describe('the transcript stays out of workflow history', () => {
  it('writes a 3 MiB file, reads a 1 MiB one, delegates a 100 KiB prompt and answers with 40 KiB, with only previews in history', async () => {
    env.model.setScript([
      { name: 'child', when: { lastUser: /^Summarise this/ }, reply: { text: CHILD_ANSWER } },
      {
        name: 'files',
        when: { lastUser: 'Do the big things', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'write', args: { filePath: 'written.txt', content: WRITTEN } },
            { name: 'read', args: { filePath: 'big-notes.txt' } },
          ],
          chunkSize: 256 * KiB,
        },
      },
      {
        name: 'delegate',
        when: { lastRole: 'tool' },
        times: 1,
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Summarise', prompt: TASK_PROMPT, subagent_type: 'general' } },
          ],
        },
      },
      { name: 'answer', when: { lastRole: 'tool' }, reply: { text: ANSWER } },
    ]);
    const { sessionId, result } = await env.start('Do the big things');
    const outcome = await result();

    // The work was done, and the whole of it is in the store and on disk.
    expect(statSync(join(env.project, 'written.txt')).size).toBe(WRITTEN.length);
    expect(readFileSync(join(env.project, 'written.txt'), 'utf8')).toBe(WRITTEN);
    const messages = await env.store.messages(sessionId);
    expect(messages.at(-1)!.parts.find((part) => part.type === 'text')).toMatchObject({ text: ANSWER });
    const [child] = await env.store.children(sessionId);
    const childMessages = await env.store.messages(child.id);
    expect(childMessages[0].parts[0]).toMatchObject({ type: 'text', text: TASK_PROMPT });
    const taskPart = messages.flatMap((m) => m.parts).find((part) => part.type === 'tool' && part.tool === 'task');
    expect(taskPart).toMatchObject({
      state: { status: 'completed', output: expect.stringContaining(CHILD_ANSWER.slice(0, 2000)) },
    });
    expect(outcome.text.length).toBeLessThanOrEqual(1000);

    // History holds ids, control data and previews: no payload over a few KiB, no content past previews.
    for (const workflowId of [sessionId, child.id]) {
      const payloads = await decodedPayloads(workflowId);
      expect(Math.max(...payloads.map((payload) => payload.length))).toBeLessThan(16 * KiB);
      expect(copiedChars(payloads, 'written-content')).toBe(0);
      expect(copiedChars(payloads, 'read-content')).toBeLessThan(1 * KiB);
      expect(copiedChars(payloads, 'task-prompt')).toBeLessThan(2 * KiB);
      expect(copiedChars(payloads, 'child-answer')).toBeLessThan(2 * KiB);
      expect(copiedChars(payloads, 'final-answer')).toBeLessThan(2 * KiB);
    }
    await env.checkReplay(sessionId, 'large-content');
  }, 120_000);

  it('tells the model when a command line is too long to check against the rules', async () => {
    env.model.setScript([
      {
        when: { lastUser: 'Run a long command', lastRole: 'user' },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: `echo ${'x'.repeat(40 * KiB)}`, description: 'Echo' } }],
        },
      },
      { when: { lastRole: 'tool' }, reply: { text: 'I will write a script instead.' } },
    ]);
    const { sessionId, result } = await env.start('Run a long command');
    await result();
    const bash = (await env.store.messages(sessionId))
      .flatMap((m) => m.parts)
      .find((part) => part.type === 'tool' && part.tool === 'bash');
    expect(bash).toMatchObject({
      state: {
        status: 'error',
        error: expect.stringMatching(/The command line is 4\d KiB long; Loom checks at most 16 KiB/),
      },
    });
    expect(env.model.requests.at(-1)!.lastTool).toContain('Write long content to a file with the write tool');
  });
});
