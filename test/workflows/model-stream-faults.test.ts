// A model stream that goes silent, and a model that answers with nothing, through a real dev
// server, worker, store and the scripted model: the first is retried and recovers, the second
// fails the run with the error stored on the assistant message.
import { WorkflowFailedError } from '@temporalio/client';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NO_FINAL_ANSWER } from '../../activities/model/stream-answer.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    // The project's own config, as a user would write it; merged over the test's provider settings.
    files: { 'loom.json': JSON.stringify({ provider: { scripted: { options: { chunkTimeout: 1_000 } } } }) },
  });
  await env.worker();
});
afterAll(() => env?.close());

/** The failure message of a model call being retried, as `loom run` reads it to report the retry. */
async function retryNotice(sessionId: string): Promise<string> {
  let notice = '';
  await vi.waitFor(
    async () => {
      const { raw } = await env.client.workflow.getHandle(sessionId).describe();
      const retried = raw.pendingActivities?.find((activity) => (activity.attempt ?? 1) >= 2 && activity.lastFailure);
      expect(retried).toBeDefined();
      notice = retried!.lastFailure!.message ?? '';
    },
    { timeout: 20_000, interval: 200 },
  );
  return notice;
}

describe('a model stream that goes silent', () => {
  it('is aborted after the idle limit and retried, and the run completes with only the retry answer', async () => {
    env.model.setScript([
      { name: 'stalls', times: 1, reply: { text: 'This answer stops half way', chunkSize: 5, stallAfterChunks: 3 } },
      // Slow to start, so the retry can be seen while it waits.
      { name: 'recovers', reply: { text: 'Recovered.', delayMs: 2_000 } },
    ]);
    const { sessionId, result } = await env.start('Tell me something');
    const notice = await retryNotice(sessionId);
    expect(notice).toMatch(
      /^scripted\/test-model sent nothing for 1 s mid-answer, after \d+ bytes \(http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions; limit: provider\.scripted\.options\.chunkTimeout\); retrying$/,
    );

    const outcome = await result();
    expect(outcome).toMatchObject({ sessionId, status: 'completed' });
    expect(env.model.requests.filter((r) => r.lastUser === 'Tell me something').map((r) => r.rule)).toEqual([
      'stalls',
      'recovers',
    ]);
    const [, answer] = await env.store.messages(sessionId);
    expect(answer.parts.map((p) => (p.type === 'text' ? p.text : p.type))).toEqual(['Recovered.']);
    expect(answer.info).not.toHaveProperty('error');
  });
});

describe('a model that answers with nothing', () => {
  it('is asked again, then fails the run with ModelEmptyResponse stored on the assistant message', async () => {
    env.model.setScript([{ name: 'empty', reply: { emptyStream: true } }]);
    const before = env.model.requests.length;
    const { sessionId, result } = await env.start('Say anything');
    const error = (await result().catch((e: unknown) => e)) as WorkflowFailedError;
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(error.cause).toMatchObject({ type: 'ModelEmptyResponse' });
    // Three requests in one attempt of the activity; not retried again by Temporal.
    expect(env.model.requests.length - before).toBe(3);
    const [, answer] = await env.store.messages(sessionId);
    expect(answer.info).toMatchObject({
      role: 'assistant',
      error: {
        name: 'ModelEmptyResponse',
        message: expect.stringMatching(/^scripted\/test-model returned an empty answer 3 times in a row/),
      },
    });
    expect(answer.parts).toEqual([]);
    expect(await env.store.getSession(sessionId)).toMatchObject({ status: 'failed' });
  });
});

describe('a model that stops answering after its tools', () => {
  it('is nudged once, then the run completes with a note that it gave no final answer', async () => {
    writeFileSync(join(env.project, 'calc.py'), 'def add(a, b):\n    return a - b\n');
    env.model.setScript([
      {
        name: 'read',
        when: { lastUser: 'Look at calc.py', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'calc.py' } }] },
      },
      { name: 'silent', reply: { emptyStream: true } },
    ]);
    const { sessionId, result } = await env.start('Look at calc.py');
    expect(await result()).toMatchObject({ status: 'completed', text: NO_FINAL_ANSWER });
    const silent = env.model.requests.filter((r) => r.rule === 'silent');
    expect(silent).toHaveLength(2);
    expect(JSON.stringify(silent[1].messages.at(-1))).toContain('You answered nothing after the tool calls above');
    const [, , last] = await env.store.messages(sessionId);
    expect(last.parts).toMatchObject([{ type: 'text', synthetic: true, text: NO_FINAL_ANSWER }]);
    expect(await env.store.getSession(sessionId)).toMatchObject({ status: 'idle' });
  });
});
