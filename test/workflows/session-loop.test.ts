import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolPart } from '../../core/records/part.js';
import { promptSignal } from '../../workflows/api.js';
import { createCliEnv, exploreScript } from '../../testkit/loom/cli-env.js';
import type { LoomTestEnv } from '../../testkit/loom/loom-env.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createCliEnv();
  await env.worker();
});
afterAll(() => env?.close());

const toolParts = (parts: { type: string }[]) => parts.filter((p): p is ToolPart => p.type === 'tool');

describe('sessionWorkflow', () => {
  it('runs read and glob calls the model makes, shows it the results, and returns its answer', async () => {
    exploreScript(env.model);
    const { sessionId, result } = await env.start('What is in this project?');
    const outcome = await result();
    expect(outcome).toMatchObject({
      sessionId,
      status: 'completed',
      text: 'A demo with two TypeScript files.',
      finish: 'stop',
      steps: 2,
    });
    expect(outcome.tokens.input).toBeGreaterThan(0);

    const second = env.model.requests.find((r) => r.rule === 'answer')!;
    const toolResults = second.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(toolResults).toHaveLength(2);
    expect(toolResults[0]).toContain('hello from the readme');
    expect(toolResults[1]).toContain('src/a.ts');
    expect(toolResults[1]).toContain('src/b.ts');
    expect(second.toolNames.sort()).toEqual([
      'bash',
      'edit',
      'glob',
      'grep',
      'list',
      'read',
      'task',
      'task_status',
      'todoread',
      'todowrite',
      'webfetch',
      'write',
    ]);
    expect(second.system).toContain(`Working directory: ${env.project}`);

    const messages = await env.store.messages(sessionId);
    expect(messages.map((m) => m.info.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(toolParts(messages[1].parts).map((p) => [p.tool, p.state.status])).toEqual([
      ['read', 'completed'],
      ['glob', 'completed'],
    ]);
    expect(await env.store.getSession(sessionId)).toMatchObject({ status: 'idle', agent: 'build' });
    await env.checkReplay(sessionId, 'read-and-glob');
  });

  it('returns unknown tools, invalid arguments and broken JSON to the model as errors it can correct', async () => {
    env.model.setScript([
      {
        when: { lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'read', args: { path: 'README.md' } },
            { name: 'delete_everything', args: {} },
            { name: 'glob', args: '{"pattern": ' },
          ],
        },
      },
      {
        name: 'corrects',
        when: { lastRole: 'tool' },
        times: 1,
        reply: { toolCalls: [{ name: 'Read', args: { filePath: 'README.md' } }] },
      },
      { name: 'done', when: { lastRole: 'tool' }, reply: { text: 'Read it.' } },
    ]);
    const { sessionId, result } = await env.start('Read the readme');
    expect((await result()).text).toBe('Read it.');

    const shown = env.model.requests
      .find((r) => r.rule === 'corrects')!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => m.content);
    expect(shown[0]).toMatch(/arguments provided to the tool "read" are invalid[\s\S]*filePath/);
    expect(shown[1]).toContain(
      'Unknown tool "delete_everything". Available tools: read, write, edit, list, glob, grep, bash, webfetch, todowrite, todoread, task',
    );
    expect(shown[2]).toContain('not valid JSON');

    const messages = await env.store.messages(sessionId);
    expect(toolParts(messages[1].parts).map((p) => p.state.status)).toEqual(['error', 'error', 'error']);
    expect(toolParts(messages[2].parts).map((p) => [p.tool, p.state.status])).toEqual([['read', 'completed']]);
    await env.checkReplay(sessionId, 'invalid-tool-calls');
  });

  it('queues a prompt signalled while the run is busy and answers it at the next step', async () => {
    env.model.setScript([
      { name: 'slow', when: { lastUser: 'Summarise' }, reply: { text: 'A summary.', delayMs: 1500 } },
      { name: 'follow-up', when: { lastUser: 'Also count' }, reply: { text: 'There are 3 files.' } },
    ]);
    const { sessionId, result } = await env.start('Summarise the project');
    await env.model.waitForRequest((r) => r.rule === 'slow');
    // As `loom resume` does: the prompt goes to the store, the run gets its id.
    await env.store.savePrompt({
      id: 'prm_queued',
      sessionID: sessionId,
      text: 'Also count the files',
      time: { created: Date.now() },
    });
    await env.client.workflow.getHandle(sessionId).signal(promptSignal, { promptId: 'prm_queued' });
    const outcome = await result();
    expect(outcome.text).toBe('There are 3 files.');
    const followUp = env.model.requests.find((r) => r.rule === 'follow-up')!;
    expect(followUp.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    const messages = await env.store.messages(sessionId);
    expect(messages.map((m) => m.info.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[2].info).toMatchObject({ promptID: 'prm_queued' });
    await env.checkReplay(sessionId, 'queued-prompt');
  });

  it('cancels a run mid-answer: the request is aborted, the partial answer kept and marked aborted', async () => {
    env.model.setScript([{ name: 'endless', reply: { text: 'word '.repeat(400), chunkDelayMs: 50, chunkSize: 5 } }]);
    const { sessionId, result } = await env.start('Talk for a long time');
    await env.model.waitForRequest((r) => r.rule === 'endless');
    await new Promise((resolve) => setTimeout(resolve, 600));
    await env.client.workflow.getHandle(sessionId).cancel();
    const error = await result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);

    const [, answer] = await env.store.messages(sessionId);
    expect(answer.info).toMatchObject({ role: 'assistant', error: { name: 'MessageAbortedError' } });
    const text = answer.parts.find((p) => p.type === 'text');
    expect(text && text.type === 'text' && text.text.length).toBeGreaterThan(0);
    expect(text && text.type === 'text' && text.text.length).toBeLessThan(2000);
    expect(await env.store.getSession(sessionId)).toMatchObject({ status: 'cancelled' });
    await env.checkReplay(sessionId, 'cancelled');
  });
});

describe('model errors', () => {
  it('fails at once on 401, with the error on the assistant message and the session failed', async () => {
    env.model.setScript([{ name: 'denied', reply: { status: 401, errorMessage: 'Incorrect API key provided' } }]);
    const before = env.model.requests.length;
    const { sessionId, result } = await env.start('Hello');
    const error = (await result().catch((e: unknown) => e)) as WorkflowFailedError;
    expect(error.cause).toMatchObject({ type: 'ModelAuthError' });
    expect(error.cause?.message).toContain('Incorrect API key provided');
    expect(env.model.requests.length - before).toBe(1);
    const [, answer] = await env.store.messages(sessionId);
    expect(answer.info).toMatchObject({ error: { name: 'ModelAuthError' } });
    expect(await env.store.getSession(sessionId)).toMatchObject({ status: 'failed' });
  });

  it('retries 429 and 5xx with backoff, then succeeds', async () => {
    env.model.setScript([
      { name: 'limited', times: 1, reply: { status: 429, headers: { 'retry-after-ms': '50' } } },
      { name: 'overloaded', times: 1, reply: { status: 503 } },
      { name: 'ok', reply: { text: 'Finally.' } },
    ]);
    const { sessionId, result } = await env.start('Hello again');
    expect((await result()).text).toBe('Finally.');
    const [, answer] = await env.store.messages(sessionId);
    expect(answer.parts.filter((p) => p.type === 'text')).toHaveLength(1);
    expect(answer.info).not.toHaveProperty('error');
  });

  it('gives up on an unreachable endpoint after the configured attempts, with the error stored', async () => {
    const { sessionId, result } = await env.start('Anyone there?', {
      model: 'dead/test-model',
      modelRetry: { maximumAttempts: 2, initialIntervalMs: 100, maximumIntervalMs: 100 },
    });
    const error = (await result().catch((e: unknown) => e)) as WorkflowFailedError;
    expect(error.cause).toMatchObject({ type: 'ModelUnreachable' });
    expect(error.cause?.message).toMatch(/Cannot reach dead\/test-model at http:\/\/127\.0\.0\.1:\d+\/v1/);
    const [, answer] = await env.store.messages(sessionId);
    expect(answer.info).toMatchObject({ error: { name: 'ModelUnreachable' } });
  });
});
