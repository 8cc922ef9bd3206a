import { WorkflowFailedError } from '@temporalio/client';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { costOf } from '../../core/models/cost.js';
import type { AssistantMessage } from '../../core/records/message.js';
import type { ReasoningPart, ToolPart } from '../../core/records/part.js';
import type { RecordedRequest, ScriptedReply } from '../../testkit/model/scripted-model-script.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';

// One session loop, three wire protocols: each provider package talks to the scripted server in
// its own API's shape, and what the server received is asserted from its recorded requests.

let env: LoomTestEnv;

const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const LOCAL_COST = { input: 1, output: 2, cache_read: 0.5, cache_write: 1.5 };

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: { 'notes.md': '# Notes\nremember the milk\n' },
    providers: (url) => ({
      anthropic: {
        options: { baseURL: url, apiKey: 'test' },
        models: { tiny: { limit: { context: 3000, output: 500 } } },
      },
      google: { options: { baseURL: url.replace(/\/v1$/, '/v1beta'), apiKey: 'test' } },
      local: {
        options: { baseURL: url },
        models: {
          'qwen3-coder': { cost: LOCAL_COST, limit: { context: 32_768, output: 4_096 } },
          'qwen-no-repair': { tool_call_repair: false },
          'qwen2.5-coder-3b-full': { prompt: 'full' },
        },
      },
    }),
  });
  await env.worker();
});
afterAll(() => env?.close());
// Rule names repeat from protocol to protocol: each test counts only its own requests.
beforeEach(() => {
  env.model.requests.length = 0;
});

interface Protocol {
  name: string;
  model: string;
  /** The tool-call id the model issued and the one its result came back with. */
  toolIds(request: RecordedRequest): { issued: string[]; answered: string[] };
  /** Whether the reasoning of the first answer was sent back, as the API requires. */
  reasoningSentBack(request: RecordedRequest): boolean;
  overflowMessage: string;
  overloaded: ScriptedReply;
}

const PROTOCOLS: Protocol[] = [
  {
    name: 'Anthropic Messages',
    model: 'anthropic/claude-sonnet-4-5',
    toolIds: (request) => ({
      issued: blocks(request, 'assistant')
        .filter((block) => block.type === 'tool_use')
        .map((block) => block.id),
      answered: blocks(request, 'user')
        .filter((block) => block.type === 'tool_result')
        .map((block) => block.tool_use_id),
    }),
    reasoningSentBack: (request) =>
      blocks(request, 'assistant').some(
        (block) => block.type === 'thinking' && block.thinking === 'Read it first.' && !!block.signature,
      ),
    overflowMessage: 'prompt is too long: 250000 tokens > 200000 maximum',
    overloaded: { status: 529, errorMessage: 'Overloaded', headers: { 'retry-after': '0' } },
  },
  {
    name: 'Gemini',
    model: 'google/gemini-2.5-flash',
    toolIds: (request) => ({
      issued: geminiParts(request, 'model')
        .filter((part) => part.functionCall)
        .map((part) => part.functionCall.name),
      answered: geminiParts(request, 'user')
        .filter((part) => part.functionResponse)
        .map((part) => part.functionResponse.name),
    }),
    reasoningSentBack: (request) =>
      geminiParts(request, 'model').some((part) => part.functionCall && !!part.thoughtSignature),
    overflowMessage: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
    overloaded: { status: 503, errorMessage: 'The model is overloaded. Please try again later.' },
  },
  {
    name: 'OpenAI-compatible',
    model: 'local/qwen3-coder',
    toolIds: (request) => ({
      issued: request.messages.flatMap((message) =>
        message.role === 'assistant' ? (message.tool_calls ?? []).map((call: { id: string }) => call.id) : [],
      ),
      answered: request.messages.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : [])),
    }),
    reasoningSentBack: (request) =>
      request.messages.some(
        (message) => message.role === 'assistant' && message.reasoning_content === 'Read it first.',
      ),
    overflowMessage: 'the request exceeds the available context size, try increasing it',
    overloaded: { status: 503, errorMessage: 'Loading model' },
  },
];

/** Anthropic content blocks of every message with this role. */
function blocks(request: RecordedRequest, role: string): any[] {
  return request.messages
    .filter((message) => message.role === role)
    .flatMap((message) => (typeof message.content === 'string' ? [] : message.content));
}

function geminiParts(request: RecordedRequest, role: string): any[] {
  return request.messages.filter((message) => message.role === role).flatMap((message) => message.parts ?? []);
}

const isCompaction = (r: RecordedRequest) => r.lastUser.includes('Write a detailed continuation prompt');

async function assistantMessages(sessionId: string) {
  return (await env.store.messages(sessionId)).filter((m) => m.info.role === 'assistant');
}

describe.each(PROTOCOLS)('$name', (protocol) => {
  const { model } = protocol;

  it('runs a tool loop: the call, its result under the same id, the reasoning sent back, tokens and cost', async () => {
    env.model.setScript([
      {
        name: 'call',
        when: { lastUser: 'What do the notes say?', lastRole: 'user' },
        reply: {
          reasoning: 'Read it first.',
          toolCalls: [{ name: 'read', args: { filePath: 'notes.md' } }],
          usage: { prompt_tokens: 1200, completion_tokens: 40, cache_read_tokens: 800, cache_write_tokens: 100 },
        },
      },
      { name: 'answer', when: { lastRole: 'tool' }, reply: { text: 'They say: remember the milk.' } },
    ]);
    const { sessionId, result } = await env.start('What do the notes say?', { model });
    expect((await result()).text).toBe('They say: remember the milk.');

    const second = env.model.requests.findLast((r) => r.rule === 'answer')!;
    expect(second.lastTool).toContain('remember the milk');
    const { issued, answered } = protocol.toolIds(second);
    expect(issued).toHaveLength(1);
    expect(answered).toEqual(issued);
    expect(protocol.reasoningSentBack(second)).toBe(true);

    const [first] = await assistantMessages(sessionId);
    expect(first.parts.find((part): part is ReasoningPart => part.type === 'reasoning')?.text).toBe('Read it first.');
    const info = first.info as AssistantMessage;
    // Only Anthropic reports cache writes; the others bill them as input.
    expect(info.tokens.cache).toEqual({ read: 800, write: protocol.name === 'Anthropic Messages' ? 100 : 0 });
    expect(info.cost).toBeGreaterThan(0);
    if (model === 'local/qwen3-coder') expect(info.cost).toBeCloseTo(costOf(info.tokens, LOCAL_COST), 10);
  });

  it('delegates to a subagent on the same model', async () => {
    env.model.setScript([
      {
        name: 'delegate',
        when: { lastUser: 'Ask a helper about the notes', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: { description: 'Read notes', prompt: 'Read notes.md and report.', subagent_type: 'explore' },
            },
          ],
        },
      },
      {
        name: 'child-read',
        when: { lastUser: 'Read notes.md and report.', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'notes.md' } }] },
      },
      {
        name: 'child-report',
        when: { lastUser: 'Read notes.md and report.', lastRole: 'tool' },
        reply: { text: 'The notes say to remember the milk.' },
      },
      { name: 'parent-done', when: { lastRole: 'tool' }, reply: { text: 'The helper read them: milk.' } },
    ]);
    const { result } = await env.start('Ask a helper about the notes', { model });
    expect((await result()).text).toBe('The helper read them: milk.');
    const done = env.model.requests.findLast((r) => r.rule === 'parent-done')!;
    expect(done.lastTool).toContain('The notes say to remember the milk.');
    expect(done.lastTool).toContain('<task_metadata>');
  });

  it('compacts when the provider says the prompt is too long, then answers the replayed question', async () => {
    env.model.setScript([
      { name: 'first', when: { lastUser: 'First question', lastRole: 'user' }, reply: { text: 'First answer.' } },
      {
        name: 'overflow',
        times: 1,
        when: { lastUser: 'Second question', lastRole: 'user' },
        reply: { status: 400, errorMessage: protocol.overflowMessage },
      },
      { name: 'summary', when: { test: isCompaction }, reply: { text: '## Goal\nAnswer questions.' } },
      { name: 'second', when: { lastUser: 'Second question' }, reply: { text: 'Second answer.' } },
    ]);
    const first = await env.start('First question', { model });
    await first.result();
    const second = await env.start('Second question', { model, sessionId: first.sessionId });
    expect((await second.result()).text).toBe('Second answer.');
    expect(env.model.requests.filter((r) => r.rule === 'summary')).toHaveLength(1);
    const messages = await env.store.messages(first.sessionId);
    expect(messages.some((m) => m.info.role === 'assistant' && m.info.summary)).toBe(true);
  });

  it('retries when the provider is overloaded, then goes on', async () => {
    env.model.setScript([
      { name: 'busy', times: 1, when: { lastUser: 'Are you there?' }, reply: protocol.overloaded },
      { name: 'there', when: { lastUser: 'Are you there?' }, reply: { text: 'Here.' } },
    ]);
    const { result } = await env.start('Are you there?', { model });
    expect((await result()).text).toBe('Here.');
    expect(env.model.requests.filter((r) => r.rule === 'busy' || r.rule === 'there').map((r) => r.rule)).toEqual([
      'busy',
      'there',
    ]);
  });

  it("fails a request the provider rejects with the provider's own message", async () => {
    env.model.setScript([
      {
        name: 'rejected',
        when: { lastUser: 'Something odd' },
        reply: { status: 400, errorMessage: 'messages.1: tool ids must be unique (scripted rejection)' },
      },
    ]);
    const { sessionId, result } = await env.start('Something odd', { model });
    const error = (await result().catch((e: unknown) => e)) as WorkflowFailedError;
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(error.cause).toMatchObject({ type: 'ModelBadRequest' });
    expect(error.cause?.message).toContain('tool ids must be unique (scripted rejection)');
    expect(env.model.requests.filter((r) => r.rule === 'rejected')).toHaveLength(1);
    const [message] = await assistantMessages(sessionId);
    expect((message.info as AssistantMessage).error?.message).toContain('tool ids must be unique');
  });
});

describe.each([
  {
    name: 'Anthropic Messages',
    model: 'anthropic/claude-sonnet-4-5',
    images: (request: RecordedRequest) =>
      blocks(request, 'user')
        .filter((block) => block.type === 'image')
        .map((block) => block.source.media_type),
  },
  {
    name: 'Gemini',
    model: 'google/gemini-2.5-flash',
    images: (request: RecordedRequest) =>
      geminiParts(request, 'user')
        .filter((part) => part.inlineData)
        .map((part) => part.inlineData.mimeType),
  },
])('$name images', ({ model, images }) => {
  it('sends an image that read opened in the shape the API expects', async () => {
    writeFileSync(join(env.project, 'pixel.png'), Buffer.from(PIXEL_PNG, 'base64'));
    env.model.setScript([
      {
        name: 'look',
        times: 1,
        when: { lastUser: 'Look at the pixel' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'pixel.png' } }] },
      },
      // The image follows the tool result as a user message of its own in Gemini, not in Anthropic.
      { name: 'seen', reply: { text: 'A pixel.' } },
    ]);
    const { result } = await env.start('Look at the pixel', { model });
    expect((await result()).text).toBe('A pixel.');
    expect(images(env.model.requests.findLast((r) => r.rule === 'seen')!)).toEqual(['image/png']);
  });
});

describe('Anthropic prompt caching', () => {
  it('marks the system prompt and the two latest messages, and no others', async () => {
    env.model.setScript([
      {
        name: 'call',
        when: { lastUser: 'Cache me', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'notes.md' } }] },
      },
      { name: 'done', when: { lastRole: 'tool' }, reply: { text: 'Cached.' } },
    ]);
    const { result } = await env.start('Cache me', { model: 'anthropic/claude-sonnet-4-5' });
    await result();
    const request = env.model.requests.findLast((r) => r.rule === 'done')!;
    expect(request.body.system.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    const marked = request.messages.map((message: { content: { cache_control?: unknown }[] }) =>
      message.content.some((block) => block.cache_control !== undefined),
    );
    expect(marked).toEqual([false, true, true]);
    expect(request.body.max_tokens).toBeLessThanOrEqual(32_000);
  });
});

describe('tool calls written as text', () => {
  it('runs a call a local model wrote in its answer, and marks it repaired', async () => {
    env.model.setScript([
      {
        name: 'as-text',
        when: { lastUser: 'Open the notes', lastRole: 'user' },
        reply: { text: '```json\n{"name": "read", "arguments": {"filePath": "notes.md"}}\n```' },
      },
      { name: 'done', when: { lastRole: 'tool' }, reply: { text: 'Milk.' } },
    ]);
    const { sessionId, result } = await env.start('Open the notes', { model: 'local/qwen3-coder' });
    expect((await result()).text).toBe('Milk.');
    expect(env.model.requests.findLast((r) => r.rule === 'done')!.lastTool).toContain('remember the milk');
    const [first] = await assistantMessages(sessionId);
    const call = first.parts.find((part): part is ToolPart => part.type === 'tool')!;
    expect(call).toMatchObject({ tool: 'read', repaired: true, state: { status: 'completed' } });
    expect(first.parts.filter((part) => part.type === 'text')).toEqual([]);
    // The output cap goes to every provider, not only Anthropic: the configured one, or 32,000 at most.
    expect(env.model.requests.find((r) => r.rule === 'as-text')!.body.max_tokens).toBe(4_096);
  });

  it('asks again when the answer is only empty call wrappers', async () => {
    env.model.setScript([
      { name: 'wrappers', times: 1, when: { lastUser: 'Say something' }, reply: { text: '<tools>\n</tools>' } },
      { name: 'said', when: { lastUser: 'Say something' }, reply: { text: 'Something.' } },
    ]);
    const { result } = await env.start('Say something', { model: 'local/qwen3-coder' });
    expect((await result()).text).toBe('Something.');
    expect(env.model.requests.map((r) => r.rule)).toEqual(['wrappers', 'said']);
  });

  it('leaves the text alone when the model turned repair off, or names no offered tool', async () => {
    const asText = '<tool_call>{"name": "read", "arguments": {"filePath": "notes.md"}}</tool_call>';
    env.model.setScript([
      { name: 'off', when: { lastUser: 'Repair is off' }, reply: { text: asText } },
      {
        name: 'unknown',
        when: { lastUser: 'Unknown tool' },
        reply: { text: '<tool_call>{"name": "launch", "arguments": {}}</tool_call>' },
      },
    ]);
    const off = await env.start('Repair is off', { model: 'local/qwen-no-repair' });
    expect((await off.result()).text).toBe(asText);
    expect(env.model.requests.find((r) => r.rule === 'off')!.body.max_tokens).toBe(32_000);
    const unknown = await env.start('Unknown tool', { model: 'local/qwen3-coder' });
    expect((await unknown.result()).text).toContain('launch');
    expect(
      env.model.requests.filter(
        (r) => r.lastRole === 'tool' && (r.lastUser === 'Repair is off' || r.lastUser === 'Unknown tool'),
      ),
    ).toEqual([]);
  });
});

describe('small models', () => {
  const full = (request: RecordedRequest) =>
    request.body.tools as { function: { name: string; description: string; parameters: { properties: object } } }[];

  it('get a short prompt and the few tools they use well, each with an example call', async () => {
    env.model.setScript([
      {
        name: 'small',
        when: { lastUser: 'Read the notes', lastRole: 'user', model: 'qwen2.5-coder-1.5b-instruct' },
        reply: { text: '<tools>{"name": "read", "arguments": {"filePath": "notes.md"}}</tools>' },
      },
      { name: 'small-done', when: { lastUser: 'Read the notes', lastRole: 'tool' }, reply: { text: 'Milk.' } },
      { name: 'big', when: { lastUser: 'Read the notes', lastRole: 'user' }, reply: { text: 'Not now.' } },
    ]);
    const small = await env.start('Read the notes', { model: 'local/qwen2.5-coder-1.5b-instruct' });
    expect((await small.result()).text).toBe('Milk.');
    const big = await env.start('Read the notes', { model: 'local/qwen3-coder' });
    await big.result();
    const [smallRequest, bigRequest] = ['small', 'big'].map((rule) => env.model.requests.find((r) => r.rule === rule)!);

    expect(smallRequest.toolNames).toEqual(['read', 'write', 'edit', 'list', 'glob', 'grep', 'bash', 'task']);
    expect(bigRequest.toolNames).toEqual(expect.arrayContaining(['todowrite', 'webfetch', 'task_status']));
    for (const tool of full(smallRequest))
      expect(tool.function.description).toContain(`Example: {"name":"${tool.function.name}","arguments":{`);
    expect(
      Object.keys(full(smallRequest).find((tool) => tool.function.name === 'bash')!.function.parameters.properties),
    ).toEqual(['command', 'description']);
    // The task tool still lists the agents it may hand work to.
    expect(full(smallRequest).find((tool) => tool.function.name === 'task')!.function.description).toMatch(
      /- explore: /,
    );
    expect(smallRequest.system).toContain('Never guess what a file holds');
    // What the project holds, so a small model need not guess names.
    expect(smallRequest.system).toMatch(/It holds: .*notes\.md/);
    expect(smallRequest.raw.length).toBeLessThan(bigRequest.raw.length / 3);
    // A small model that loops stops after 4,096 tokens unless its configuration says otherwise.
    expect(smallRequest.body.max_tokens).toBe(4_096);
  });

  it('get the files their prompt names read for them, and a full model does not', async () => {
    env.model.setScript([{ name: 'named', when: { lastUser: /^Tidy notes\.md/ }, reply: { text: 'Tidied.' } }]);
    await (
      await env.start('Tidy notes.md and missing.md, not calc.divide', { model: 'local/qwen2.5-coder-1.5b-instruct' })
    ).result();
    await (await env.start('Tidy notes.md, please', { model: 'local/qwen3-coder' })).result();
    const [small, full] = env.model.requests.filter((r) => r.rule === 'named');
    expect(JSON.stringify(small.messages)).toContain('remember the milk');
    expect(JSON.stringify(small.messages)).not.toContain('missing.md\\"');
    expect(JSON.stringify(full.messages)).not.toContain('remember the milk');
  });

  it('follow the configuration over what the name says', async () => {
    env.model.setScript([{ name: 'configured', when: { lastUser: 'Say hello' }, reply: { text: 'Hello.' } }]);
    await (await env.start('Say hello', { model: 'local/qwen2.5-coder-3b-full' })).result();
    expect(env.model.requests.find((r) => r.rule === 'configured')!.toolNames).toContain('todowrite');
  });

  it('cannot call a tool they were not offered', async () => {
    env.model.setScript([
      {
        name: 'todo',
        times: 1,
        when: { lastUser: 'Plan the work', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'todowrite', args: { todos: [] } }] },
      },
      { name: 'after', when: { lastUser: 'Plan the work' }, reply: { text: 'Planned.' } },
    ]);
    const { sessionId, result } = await env.start('Plan the work', { model: 'local/qwen2.5-coder-1.5b-instruct' });
    await result();
    const [first] = await assistantMessages(sessionId);
    const call = first.parts.find((part): part is ToolPart => part.type === 'tool')!;
    expect(call).toMatchObject({
      tool: 'todowrite',
      state: { status: 'error', error: expect.stringMatching(/not (offered|available)/i) },
    });
  });
});
