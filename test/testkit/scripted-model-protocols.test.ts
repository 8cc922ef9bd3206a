// The scripted model server speaking Anthropic Messages and Gemini, exercised through the real
// AI SDK provider packages.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { APICallError, generateText, stepCountIs, streamText, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startScriptedModel, type ScriptedModel } from '../../testkit/model/scripted-model.js';
import type { ScriptRule } from '../../testkit/model/scripted-model-script.js';

const tools = {
  read: tool({
    description: 'Read a file',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => `FILE ${path} SAYS 42`,
  }),
};

const toolLoop: ScriptRule[] = [
  {
    name: 'call',
    when: { lastUser: 'What does a.txt say?', lastRole: 'user' },
    reply: {
      reasoning: 'I should read the file first.',
      text: 'Reading.',
      toolCalls: [{ name: 'read', args: { path: 'a.txt' }, id: 'toolu_custom' }],
      chunkSize: 6,
      usage: { prompt_tokens: 1200, completion_tokens: 40, cache_read_tokens: 800, cache_write_tokens: 100 },
    },
  },
  { name: 'answer', when: { lastTool: 'SAYS 42' }, reply: { text: 'It says 42.' } },
];

let server: ScriptedModel | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function rejection(p: PromiseLike<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the promise to reject');
}

const anthropicModel = (url: string, apiKey = 'test') => createAnthropic({ baseURL: url, apiKey })('claude-sonnet-4-5');
const geminiModel = (url: string, apiKey = 'test') =>
  createGoogleGenerativeAI({ baseURL: url.replace(/\/v1$/, '/v1beta'), apiKey })('gemini-2.5-flash');

/** Streams the tool loop: the call, the tool's result sent back, the answer. */
async function runToolLoop(model: Parameters<typeof streamText>[0]['model']) {
  const result = streamText({ model, prompt: 'What does a.txt say?', tools, stopWhen: stepCountIs(2), maxRetries: 0 });
  const parts: any[] = [];
  for await (const part of result.fullStream) parts.push(part);
  return { parts, steps: await result.steps, text: await result.text };
}

describe('scripted model server: Anthropic Messages', () => {
  it('streams reasoning, text and a tool call with cache usage, then sees the tool result', async () => {
    server = await startScriptedModel(toolLoop);
    const { parts, steps, text } = await runToolLoop(anthropicModel(server.url));
    expect(parts.filter((p) => p.type === 'reasoning-delta').length).toBeGreaterThan(1);
    expect(steps[0].reasoningText).toBe('I should read the file first.');
    expect(steps[0].text).toBe('Reading.');
    expect(steps[0].toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
      ['toolu_custom', 'read', { path: 'a.txt' }],
    ]);
    expect(steps[0].finishReason).toBe('tool-calls');
    const usage = steps[0].usage;
    expect([usage.inputTokens, usage.outputTokens]).toEqual([1200, 40]);
    expect(usage.inputTokenDetails).toEqual({ noCacheTokens: 300, cacheReadTokens: 800, cacheWriteTokens: 100 });
    expect(text).toBe('It says 42.');

    const [first, second] = server.requests;
    expect([first.protocol, first.path, first.model, first.stream, first.lastRole]).toEqual([
      'anthropic',
      '/v1/messages',
      'claude-sonnet-4-5',
      true,
      'user',
    ]);
    expect(first.toolNames).toEqual(['read']);
    expect(first.headers['x-api-key']).toBe('test');
    expect([second.rule, second.lastRole, second.lastUser]).toEqual(['answer', 'tool', 'What does a.txt say?']);
    expect(second.lastTool).toContain('FILE a.txt SAYS 42');
    const assistant = second.messages.find((m) => m.role === 'assistant');
    expect(assistant.content).toContainEqual({
      type: 'thinking',
      thinking: 'I should read the file first.',
      signature: 'sig_1',
    });
    expect(assistant.content).toContainEqual(expect.objectContaining({ type: 'tool_use', id: 'toolu_custom' }));
  });

  it('answers generateText with JSON, reading the system prompt; unmatched requests fail readably', async () => {
    server = await startScriptedModel([
      {
        when: { system: 'You are terse.', anyMessage: 'hello' },
        reply: { text: 'Hi.', toolCalls: [{ name: 'read', args: { path: 'b' } }] },
      },
      { when: { lastUser: 'long' }, reply: { text: 'Cut', finish: 'length' } },
    ]);
    const model = anthropicModel(server.url);
    const result = await generateText({
      model,
      system: 'You are terse.',
      prompt: 'hello',
      tools: { read: tools.read },
      maxRetries: 0,
    });
    expect(result.text).toBe('Hi.');
    expect(result.toolCalls[0].toolCallId).toMatch(/^toolu_\d+$/);
    expect(result.finishReason).toBe('tool-calls');
    expect(server.requests[0]).toMatchObject({ stream: false, system: 'You are terse.', lastUser: 'hello' });
    expect((await generateText({ model, prompt: 'long', maxRetries: 0 })).finishReason).toBe('length');

    const err = await rejection(generateText({ model, prompt: 'nothing scripted', maxRetries: 0 }));
    expect([err.statusCode, err.data?.error?.type]).toEqual([400, 'invalid_request_error']);
    expect(err.message).toContain('No scripted reply matched');
  });

  it("sends errors in Anthropic's shape with the scripted status and headers", async () => {
    server = await startScriptedModel([
      { reply: { status: 529, errorMessage: 'Overloaded', headers: { 'retry-after': '0' } } },
    ]);
    const err = await rejection(generateText({ model: anthropicModel(server.url), prompt: 'hi', maxRetries: 0 }));
    expect(APICallError.isInstance(err)).toBe(true);
    expect([err.statusCode, err.message, err.isRetryable]).toEqual([529, 'Overloaded', true]);
    expect(err.data).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(err.responseHeaders['retry-after']).toBe('0');
  });

  it('checks x-api-key', async () => {
    server = await startScriptedModel([{ reply: { text: 'secret ok' } }], { apiKey: 'sekrit' });
    const err = await rejection(
      generateText({ model: anthropicModel(server.url, 'nope'), prompt: 'hi', maxRetries: 0 }),
    );
    expect([err.statusCode, err.data?.error?.type]).toEqual([401, 'authentication_error']);
    const right = await generateText({ model: anthropicModel(server.url, 'sekrit'), prompt: 'hi', maxRetries: 0 });
    expect(right.text).toBe('secret ok');
  });
});

describe('scripted model server: Gemini', () => {
  it('streams thoughts, text and a function call with cached tokens, then sees the function response', async () => {
    server = await startScriptedModel(toolLoop);
    const { parts, steps, text } = await runToolLoop(geminiModel(server.url));
    expect(parts.filter((p) => p.type === 'reasoning-delta').length).toBeGreaterThan(1);
    expect(steps[0].reasoningText).toBe('I should read the file first.');
    expect(steps[0].text).toBe('Reading.');
    expect(steps[0].toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
      ['toolu_custom', 'read', { path: 'a.txt' }],
    ]);
    expect(steps[0].finishReason).toBe('tool-calls');
    const usage = steps[0].usage;
    expect([usage.inputTokens, usage.outputTokens]).toEqual([1200, 40]);
    expect(usage.inputTokenDetails.cacheReadTokens).toBe(800);
    expect(usage.outputTokenDetails.reasoningTokens).toBe(Math.ceil('I should read the file first.'.length / 4));
    expect(text).toBe('It says 42.');

    const [first, second] = server.requests;
    expect([first.protocol, first.model, first.stream, first.lastRole]).toEqual([
      'gemini',
      'gemini-2.5-flash',
      true,
      'user',
    ]);
    expect(first.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    expect(first.toolNames).toEqual(['read']);
    expect(first.headers['x-goog-api-key']).toBe('test');
    expect([second.rule, second.lastRole, second.lastUser]).toEqual(['answer', 'tool', 'What does a.txt say?']);
    expect(second.lastTool).toContain('FILE a.txt SAYS 42');
    const modelParts = second.messages.filter((c) => c.role === 'model').flatMap((c) => c.parts);
    expect(modelParts.find((p) => p.functionCall)).toMatchObject({
      functionCall: { name: 'read', args: { path: 'a.txt' } },
      thoughtSignature: 'sig_1',
    });
  });

  it('answers generateContent with JSON, reading the system instruction', async () => {
    server = await startScriptedModel([
      { when: { system: 'You are terse.', lastUser: 'hello' }, reply: { reasoning: 'Greet back.', text: 'Hi.' } },
      { when: { lastUser: 'long' }, reply: { text: 'Cut', finish: 'length' } },
    ]);
    const model = geminiModel(server.url);
    const result = await generateText({ model, system: 'You are terse.', prompt: 'hello', maxRetries: 0 });
    expect([result.text, result.reasoningText, result.finishReason]).toEqual(['Hi.', 'Greet back.', 'stop']);
    expect(server.requests[0]).toMatchObject({
      stream: false,
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
    });
    expect((await generateText({ model, prompt: 'long', maxRetries: 0 })).finishReason).toBe('length');
  });

  it("sends errors in Google's shape", async () => {
    server = await startScriptedModel([
      { reply: { status: 400, errorMessage: 'The input token count exceeds the maximum.' } },
    ]);
    const err = await rejection(generateText({ model: geminiModel(server.url), prompt: 'hi', maxRetries: 0 }));
    expect(APICallError.isInstance(err)).toBe(true);
    expect([err.statusCode, err.message, err.isRetryable]).toEqual([
      400,
      'The input token count exceeds the maximum.',
      false,
    ]);
    expect(err.data.error).toEqual({
      code: 400,
      message: 'The input token count exceeds the maximum.',
      status: 'INVALID_ARGUMENT',
    });
  });

  it('checks x-goog-api-key', async () => {
    server = await startScriptedModel([{ reply: { text: 'secret ok' } }], { apiKey: 'sekrit' });
    const err = await rejection(generateText({ model: geminiModel(server.url, 'nope'), prompt: 'hi', maxRetries: 0 }));
    expect([err.statusCode, err.data?.error?.status]).toEqual([401, 'UNAUTHENTICATED']);
    const right = await generateText({ model: geminiModel(server.url, 'sekrit'), prompt: 'hi', maxRetries: 0 });
    expect(right.text).toBe('secret ok');
  });
});

describe('scripted model server: OpenAI cache usage', () => {
  it('reports cache reads as prompt_tokens_details.cached_tokens', async () => {
    server = await startScriptedModel([
      { reply: { text: 'ok', usage: { prompt_tokens: 100, completion_tokens: 5, cache_read_tokens: 60 } } },
    ]);
    const res = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'q' }] }),
    });
    const body: any = await res.json();
    expect(body.usage).toMatchObject({ prompt_tokens: 100, prompt_tokens_details: { cached_tokens: 60 } });
    expect(server.requests[0].protocol).toBe('openai');
  });
});
