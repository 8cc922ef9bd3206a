// The scripted model server, exercised through the real AI SDK OpenAI chat client.
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateText, streamText, tool, type ModelMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startScriptedModel, type ScriptedModel } from '../../testkit/model/scripted-model.js';
import type { ScriptRule } from '../../testkit/model/scripted-model-script.js';

const tools = {
  read: tool({ description: 'Read a file', inputSchema: z.object({ path: z.string() }) }),
  bash: tool({
    description: 'Run a command',
    inputSchema: z.object({ command: z.string(), timeout: z.number().optional() }),
  }),
};

let server: ScriptedModel | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(rules: ScriptRule[], options?: { apiKey?: string }) {
  server = await startScriptedModel(rules, options);
  return { server, model: createOpenAI({ baseURL: server.url, apiKey: options?.apiKey ?? 'test' }).chat('scripted-1') };
}

/** Collect streamText's fullStream; a thrown error (e.g. network failure) is returned, not raised. */
async function collect(stream: AsyncIterable<any>) {
  const parts: any[] = [];
  try {
    for await (const part of stream) parts.push(part);
    return { parts, thrown: undefined as unknown };
  } catch (thrown) {
    return { parts, thrown };
  }
}

async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the promise to reject');
}

describe('scripted model server', () => {
  it('streams text as several deltas that add up to the whole answer, with usage', async () => {
    const text = 'The quick brown fox jumps over the lazy dog, twice over.';
    const { model } = await start([
      { reply: { text, chunkSize: 8, usage: { prompt_tokens: 123, completion_tokens: 45 } } },
    ]);
    const result = streamText({ model, prompt: 'hi', maxRetries: 0 });
    const { parts } = await collect(result.fullStream);
    const deltas = parts.filter((p) => p.type === 'text-delta').map((p) => p.text);
    expect(deltas.length).toBeGreaterThanOrEqual(7);
    expect(deltas.join('')).toBe(text);
    expect(await result.text).toBe(text);
    expect(await result.finishReason).toBe('stop');
    const usage = await result.usage;
    expect([usage.inputTokens, usage.outputTokens, usage.totalTokens]).toEqual([123, 45, 168]);
  });

  it('answers non-streaming generateText, estimating usage when not scripted', async () => {
    const { model, server } = await start([{ reply: { text: 'plain answer' } }]);
    const result = await generateText({ model, prompt: 'hello there', maxRetries: 0 });
    expect(result.text).toBe('plain answer');
    expect(result.finishReason).toBe('stop');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBe(Math.ceil('plain answer'.length / 4));
    expect(server.requests[0].stream).toBe(false);
    expect(result.response.id).toMatch(/^chatcmpl-/);
  });

  it('sends reasoning_content before the text (which @ai-sdk/openai .chat() does not surface)', async () => {
    const reasoning = 'Let me think about this carefully first.';
    const { model } = await start([{ reply: { reasoning, text: 'Answer.', chunkSize: 10 } }]);
    const result = streamText({ model, prompt: 'q', maxRetries: 0, includeRawChunks: true });
    const { parts } = await collect(result.fullStream);
    const raw = parts.filter((p) => p.type === 'raw').map((p) => p.rawValue.choices?.[0]?.delta ?? {});
    const reasoningDeltas = raw.filter((d) => d.reasoning_content).map((d) => d.reasoning_content);
    expect(reasoningDeltas.join('')).toBe(reasoning);
    expect(raw.findIndex((d) => d.reasoning_content)).toBeLessThan(raw.findIndex((d) => d.content));
    // The OpenAI chat provider's chunk schema has no reasoning_content field: it is dropped.
    expect(parts.some((p) => p.type.startsWith('reasoning'))).toBe(false);
    expect(await result.text).toBe('Answer.');
    expect((await result.usage).outputTokenDetails.reasoningTokens).toBe(Math.ceil(reasoning.length / 4));

    const res = await fetch(`${server!.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'q' }] }),
    });
    const body: any = await res.json();
    expect(body.choices[0].message).toMatchObject({
      role: 'assistant',
      content: 'Answer.',
      reasoning_content: reasoning,
    });
  });

  it('streams tool calls that come back parsed, with finishReason tool-calls', async () => {
    const { model, server } = await start([
      {
        reply: {
          text: 'Reading both.',
          chunkSize: 5,
          toolCalls: [
            { name: 'read', args: { path: 'src/index.ts' } },
            { name: 'bash', args: { command: 'ls -la', timeout: 5 }, id: 'call_custom' },
          ],
        },
      },
    ]);
    const result = streamText({ model, prompt: 'look around', tools, maxRetries: 0 });
    const { parts } = await collect(result.fullStream);
    expect(parts.filter((p) => p.type === 'tool-input-delta').length).toBeGreaterThan(2);
    const calls = await result.toolCalls;
    expect(calls.map((c) => [c.toolName, c.input])).toEqual([
      ['read', { path: 'src/index.ts' }],
      ['bash', { command: 'ls -la', timeout: 5 }],
    ]);
    expect(calls[0].toolCallId).toMatch(/^call_\d+$/);
    expect(calls[1].toolCallId).toBe('call_custom');
    expect(await result.finishReason).toBe('tool-calls');
    expect(await result.text).toBe('Reading both.');

    const again = await generateText({ model, prompt: 'again', tools, maxRetries: 0 });
    expect(again.toolCalls.map((c) => c.input)).toEqual([{ path: 'src/index.ts' }, { command: 'ls -la', timeout: 5 }]);
    expect(again.toolCalls[0].toolCallId).not.toBe(calls[0].toolCallId); // ids are unique per server
    expect(again.finishReason).toBe('tool-calls');
    expect(server.requests.map((r) => r.stream)).toEqual([true, false]);
  });

  it('matches on system prompt, last user message and last tool result', async () => {
    const { model, server } = await start([
      { name: 'tool-result', when: { lastTool: 'FILE SAYS 42' }, reply: { text: 'The file says 42.' } },
      {
        name: 'plan',
        when: { system: 'You are the planner', lastUser: /read (\S+)/ },
        reply: { toolCalls: [{ name: 'read', args: { path: 'a.txt' } }] },
      },
      { name: 'other-agent', when: { system: 'You are the coder' }, reply: { text: 'coder here' } },
    ]);
    const coder = await generateText({ model, system: 'You are the coder.', prompt: 'read a.txt', maxRetries: 0 });
    expect(coder.text).toBe('coder here');

    const system = 'You are the planner.';
    const first = await generateText({ model, system, prompt: 'please read a.txt', tools, maxRetries: 0 });
    expect(first.toolCalls[0].input).toEqual({ path: 'a.txt' });
    const messages: ModelMessage[] = [
      { role: 'user', content: 'please read a.txt' },
      ...first.response.messages,
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: first.toolCalls[0].toolCallId,
            toolName: 'read',
            output: { type: 'text', value: 'FILE SAYS 42' },
          },
        ],
      },
    ];
    const followUp = streamText({ model, system, messages, tools, maxRetries: 0 });
    expect(await followUp.text).toBe('The file says 42.');
    expect(server.requests.map((r) => r.rule)).toEqual(['other-agent', 'plan', 'tool-result']);
    const last = server.requests[2];
    expect([last.lastRole, last.lastTool, last.lastUser, last.system]).toEqual([
      'tool',
      'FILE SAYS 42',
      'please read a.txt',
      system,
    ]);
  });

  it('respects times, and setScript/addRules replace and extend the script', async () => {
    const { model, server } = await start([
      { name: 'once', reply: { text: 'first' }, times: 1 },
      { name: 'always', reply: (r) => ({ text: `echo ${r.lastUser}` }) },
    ]);
    const ask = async (prompt: string) => (await generateText({ model, prompt, maxRetries: 0 })).text;
    expect([await ask('a'), await ask('b'), await ask('c')]).toEqual(['first', 'echo b', 'echo c']);
    server.setScript([{ name: 'fresh', when: { lastUser: 'x' }, reply: { text: 'fresh' }, times: 1 }]);
    server.addRules({ name: 'fallback', reply: { text: 'fallback' } });
    expect([await ask('x'), await ask('x')]).toEqual(['fresh', 'fallback']);
    expect(server.requests.map((r) => r.rule)).toEqual(['once', 'always', 'always', 'fresh', 'fallback']);
  });

  it('records requests with tool names, system, last user text and headers', async () => {
    const { model, server } = await start([{ reply: { text: 'ok' } }]);
    await generateText({
      model,
      system: 'SYSTEM ONE',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'part one, ' },
            { type: 'text', text: 'part two' },
          ],
        },
      ],
      tools,
      maxRetries: 0,
    });
    const [r] = server.requests;
    expect(r).toMatchObject({
      index: 0,
      path: '/v1/chat/completions',
      model: 'scripted-1',
      system: 'SYSTEM ONE',
      lastRole: 'user',
    });
    expect(r.lastUser).toBe('part one, part two');
    expect(r.toolNames).toEqual(['read', 'bash']);
    expect(r.headers.authorization).toBe('Bearer test');
    expect(r.body.tools[0].function.parameters.properties.path).toEqual({ type: 'string' });
  });

  it('fails readably with HTTP 400 when no rule matches, and still records the request', async () => {
    const { model, server } = await start([{ name: 'only-xyz', when: { lastUser: 'xyz' }, reply: { text: 'xyz' } }]);
    const err = await rejection(generateText({ model, prompt: 'something unexpected', maxRetries: 0 }));
    expect(APICallError.isInstance(err)).toBe(true);
    expect(err.statusCode).toBe(400);
    expect(err.message).toContain('No scripted reply matched');
    expect(err.message).toContain("last message role 'user'");
    expect(err.message).toContain('something unexpected');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].rule).toBeUndefined();
  });

  it('rejects a wrong API key with 401 (not retryable)', async () => {
    server = await startScriptedModel([{ reply: { text: 'secret ok' } }], { apiKey: 'sekrit' });
    const wrong = createOpenAI({ baseURL: server.url, apiKey: 'nope' }).chat('scripted-1');
    const err = await rejection(generateText({ model: wrong, prompt: 'hi', maxRetries: 0 }));
    expect(APICallError.isInstance(err)).toBe(true);
    expect([err.statusCode, err.isRetryable]).toEqual([401, false]);
    const right = createOpenAI({ baseURL: server.url, apiKey: 'sekrit' }).chat('scripted-1');
    expect((await generateText({ model: right, prompt: 'hi', maxRetries: 0 })).text).toBe('secret ok');
  });

  it('surfaces a 429 with retry-after as a retryable APICallError (generate and stream)', async () => {
    const { model } = await start([
      { reply: { status: 429, errorMessage: 'Slow down', headers: { 'retry-after': '1' } } },
    ]);
    const err = await rejection(generateText({ model, prompt: 'hi', maxRetries: 0 }));
    expect(APICallError.isInstance(err)).toBe(true);
    expect([err.statusCode, err.isRetryable, err.message]).toEqual([429, true, 'Slow down']);
    expect(err.responseHeaders['retry-after']).toBe('1');
    expect(err.data.error.code).toBe('rate_limit_exceeded');

    const { parts } = await collect(streamText({ model, prompt: 'hi', maxRetries: 0, onError: () => {} }).fullStream);
    const errorPart = parts.find((p) => p.type === 'error');
    expect([errorPart.error.statusCode, errorPart.error.isRetryable]).toEqual([429, true]);
  });

  it('waitForRequest resolves for past and future requests and times out readably', async () => {
    const { model, server } = await start([{ reply: { text: 'ok', delayMs: 50 } }]);
    await generateText({ model, prompt: 'early', maxRetries: 0 });
    expect((await server.waitForRequest((r) => r.lastUser === 'early')).index).toBe(0);
    const later = server.waitForRequest((r) => r.lastUser === 'late');
    const answered = generateText({ model, prompt: 'late', maxRetries: 0 });
    expect((await later).index).toBe(1);
    await answered;
    const err = await rejection(server.waitForRequest((r) => r.lastUser === 'never', 100));
    expect(err.message).toMatch(/no matching request within 100 ms; 2 recorded/);
  });

  it('close() ends a slow stream promptly', async () => {
    const { model, server } = await start([{ reply: { text: 'slow '.repeat(100), chunkSize: 5, chunkDelayMs: 200 } }]);
    const result = streamText({ model, prompt: 'go', maxRetries: 0, onError: () => {} });
    const collected = collect(result.fullStream);
    await server.waitForRequest(() => true);
    await new Promise((r) => setTimeout(r, 500));
    const t0 = Date.now();
    await server.close();
    const { parts, thrown } = await collected;
    expect(Date.now() - t0).toBeLessThan(1000);
    const deltas = parts.filter((p) => p.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.length).toBeLessThan(20);
    expect(thrown ?? parts.find((p) => p.type === 'error')).toBeDefined();
  });

  it('hangUp breaks the stream mid-answer; client aborts do not hurt the server', async () => {
    const { model } = await start([
      { name: 'hang', when: { lastUser: 'hang' }, reply: { text: 'x'.repeat(200), chunkSize: 10, hangUp: true } },
      { name: 'slow', when: { lastUser: 'slow' }, reply: { text: 'y'.repeat(200), chunkSize: 10, chunkDelayMs: 30 } },
      { name: 'ok', reply: { text: 'still fine' } },
    ]);
    const hung = await collect(streamText({ model, prompt: 'hang', maxRetries: 0, onError: () => {} }).fullStream);
    expect(hung.parts.filter((p) => p.type === 'text-delta').length).toBeGreaterThan(0);
    // A network failure mid-stream is thrown from the iteration (not an error part).
    expect(APICallError.isInstance(hung.thrown)).toBe(true);
    expect((hung.thrown as APICallError).isRetryable).toBe(true);

    const abort = new AbortController();
    const slow = streamText({ model, prompt: 'slow', maxRetries: 0, abortSignal: abort.signal, onError: () => {} });
    setTimeout(() => abort.abort(), 100);
    await collect(slow.fullStream);
    expect((await generateText({ model, prompt: 'after', maxRetries: 0 })).text).toBe('still fine');
  });

  it('reports invalid tool-call JSON and unknown tools as invalid dynamic tool calls plus tool-error', async () => {
    const { model } = await start([
      { when: { lastUser: 'bad json' }, reply: { toolCalls: [{ name: 'read', args: '{"path": "a.txt"' }] } },
      { when: { lastUser: 'unknown' }, reply: { toolCalls: [{ name: 'write', args: { path: 'b' } }] } },
    ]);
    const bad = await collect(streamText({ model, prompt: 'bad json', tools, maxRetries: 0 }).fullStream);
    const badCall = bad.parts.find((p) => p.type === 'tool-call');
    expect(badCall).toMatchObject({ toolName: 'read', input: '{"path": "a.txt"', dynamic: true, invalid: true });
    expect(badCall.error.name).toBe('AI_InvalidToolInputError');
    expect(bad.parts.find((p) => p.type === 'tool-error')).toMatchObject({ toolName: 'read', dynamic: true });

    const unknown = await collect(streamText({ model, prompt: 'unknown', tools, maxRetries: 0 }).fullStream);
    const unknownCall = unknown.parts.find((p) => p.type === 'tool-call');
    expect(unknownCall).toMatchObject({ toolName: 'write', input: { path: 'b' }, dynamic: true, invalid: true });
    expect(unknownCall.error.name).toBe('AI_NoSuchToolError');
    expect(unknown.parts.find((p) => p.type === 'finish').finishReason).toBe('tool-calls');
  });

  it('serves GET /v1/models and 404s unknown paths', async () => {
    const { model, server } = await start([{ reply: { text: 'ok' } }]);
    await generateText({ model, prompt: 'hi', maxRetries: 0 });
    const models: any = await (await fetch(`${server.url}/models`)).json();
    expect(models.object).toBe('list');
    expect(models.data.map((m: { id: string }) => m.id)).toEqual(['scripted', 'scripted-1']);
    const missing = await fetch(`${server.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.message).toContain('/v1/embeddings');
  });
});
