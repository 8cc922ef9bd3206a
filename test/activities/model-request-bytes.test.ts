// Loom hands the provider a prompt it converts itself (toLanguageModelPrompt) instead of going
// through `streamText`, which validated the whole transcript on every call. These tests send the
// same requests both ways, Loom's and the AI SDK's `streamText`, and compare what arrived: the
// bytes at the scripted chat-completions server, and the call the provider was given (for the
// Responses API too, which the scripted server does not speak).
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { MockActivityEnvironment } from '@temporalio/testing';
import { jsonSchema, streamText, tool, type ToolSet } from 'ai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoomConfig } from '../../core/config/config.js';
import { buildModelRequest } from '../../activities/model/model-request.js';
import { functionTools } from '../../activities/model/offered-tools.js';
import { resolveModel, type ResolvedModel } from '../../activities/model/provider.js';
import { streamIntoMessage, type ModelRequest } from '../../activities/model/stream-answer.js';
import { toModelMessages } from '../../activities/model/transcript.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import {
  zeroTokens,
  type AssistantMessage,
  type MessageWithParts,
  type UserMessage,
} from '../../core/records/message.js';
import type { Part, ToolState } from '../../core/records/part.js';
import { toolFinder } from '../../core/tools/index.js';
import { assistantMessage } from '../../testkit/model/model-activity.js';
import { startScriptedModel, type ScriptedModel } from '../../testkit/model/scripted-model.js';

const SESSION = 'ses_bytes';
const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

let dir: string;
let store: SqliteSessionStore;
let server: ScriptedModel;
let config: LoomConfig;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loom-bytes-'));
  store = new SqliteSessionStore(join(dir, 'loom.db'));
  server = await startScriptedModel([{ reply: { text: 'ok' } }]);
  config = { provider: { scripted: { options: { baseURL: server.url, apiKey: 'test' } } } };
});

afterAll(async () => {
  await server.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

let nextPart = 0;
type NewPart = Part extends infer P ? (P extends Part ? Omit<P, 'id' | 'sessionID' | 'messageID'> : never) : never;
const withIds = (messageID: string, parts: NewPart[]) =>
  parts.map(
    (part) => ({ ...part, id: `prt_${String(nextPart++).padStart(4, '0')}`, sessionID: SESSION, messageID }) as Part,
  );

function user(id: string, parts: NewPart[]): MessageWithParts {
  const info: UserMessage = {
    id,
    sessionID: SESSION,
    role: 'user',
    agent: 'build',
    model: 'scripted/m',
    time: { created: 1 },
  };
  return { info, parts: withIds(id, parts) };
}

function assistant(id: string, agent: string, parts: NewPart[]): MessageWithParts {
  const info: AssistantMessage = {
    id,
    sessionID: SESSION,
    role: 'assistant',
    agent,
    model: 'scripted/m',
    parentID: 'msg_0001',
    step: 1,
    time: { created: 2 },
    tokens: zeroTokens(),
    cost: 0,
  };
  return { info, parts: withIds(id, parts) };
}

const time = { start: 1, end: 2 };
const call = (callID: string, toolName: string, state: ToolState): NewPart => ({
  type: 'tool',
  callID,
  tool: toolName,
  state,
});

/** A session with every kind of part the transcript shows, and a switch from plan to build. */
const history: MessageWithParts[] = [
  user('msg_0001', [
    { type: 'text', text: 'Look at the logo and the readme.' },
    { type: 'text', text: '' },
    { type: 'file', mime: 'image/png', filename: 'logo.png', url: PNG },
  ]),
  assistant('msg_0002', 'plan', [
    { type: 'reasoning', text: 'The user wants two things.', time },
    { type: 'text', text: 'Reading both.', time },
    call('call_1', 'read', {
      status: 'completed',
      input: { filePath: 'README.md' },
      output: '# Demo\n\nünïcödé "quotes" \\ back\tslash',
      title: 'README.md',
      metadata: {},
      time,
    }),
    call('call_2', 'read', {
      status: 'completed',
      input: { filePath: 'logo.png' },
      output: 'Image read',
      title: 'logo.png',
      metadata: {},
      time,
      attachments: [{ mime: 'image/png', filename: 'logo.png', url: PNG }],
    }),
    call('call_3', 'glob', { status: 'error', input: { pattern: '**/*.md' }, error: 'Pattern too wide', time }),
  ]),
  assistant('msg_0003', 'plan', [
    call('call_4', 'bash', {
      status: 'running',
      input: { command: 'npm test', description: 'Run tests' },
      time: { start: 1 },
    }),
  ]),
  assistant('msg_0004', 'plan', [{ type: 'text', text: '' }]),
  user('msg_0005', [{ type: 'subtask', prompt: 'Find the tests', description: 'find tests', agent: 'explore' }]),
  assistant('msg_0006', 'plan', [
    call('call_5', 'grep', {
      status: 'completed',
      input: { pattern: 'it\\(' },
      output: 'old output',
      title: 'grep',
      metadata: {},
      time: { ...time, compacted: 3 },
    }),
    { type: 'text', text: 'Found them.', time },
  ]),
  user('msg_0007', [{ type: 'text', text: 'Now build it.' }]),
];

function request(model: ResolvedModel, options: { lastStep?: boolean; agent?: string } = {}): ModelRequest {
  const input = {
    sessionId: SESSION,
    messageId: 'msg_0008',
    parentMessageId: 'msg_0007',
    agent: options.agent ?? 'build',
    model: 'scripted/m',
    step: 3,
    directory: dir,
    tools: [],
    lastStep: options.lastStep,
    workspaceConfigId: 'wsc_unread',
  };
  const built = buildModelRequest(input, config, dir, history, { git: true });
  const find = toolFinder();
  return {
    model,
    system: built.system,
    messages: built.messages,
    tools: functionTools(
      ['read', 'glob', 'grep', 'bash', 'edit', 'write', 'todowrite', 'webfetch', 'nothing-by-this-name'],
      find,
      (spec) => spec.description,
    ),
    temperature: 0.3,
    topP: 0.9,
    topK: 40,
    // Each package reads its own key: OpenAI's option, and the same passed through raw to a compatible server.
    providerOptions: { openai: { parallelToolCalls: false }, scripted: { parallel_tool_calls: false } },
  };
}

/** The request as Loom sends it. */
async function sendAsLoom(model: ModelRequest): Promise<void> {
  const message = assistantMessage(SESSION);
  await new MockActivityEnvironment()
    .run(() => streamIntoMessage(store, message, async () => model))
    .catch(() => undefined);
}

/** The same request through `streamText`, as Loom sent it before. */
async function sendAsStreamText(model: ModelRequest): Promise<void> {
  const tools: ToolSet = {};
  for (const offered of model.tools ?? [])
    tools[offered.name] = tool({ description: offered.description, inputSchema: jsonSchema(offered.inputSchema) });
  const result = streamText({
    model: model.model.model,
    system: model.system,
    messages: model.messages,
    tools: model.tools?.length ? tools : undefined,
    temperature: model.temperature,
    topP: model.topP,
    topK: model.topK,
    providerOptions: model.providerOptions as never,
    maxRetries: 0,
    onError: () => undefined,
  });
  for await (const chunk of result.fullStream) void chunk;
}

/** Both ways, one after the other: the two bodies as the server received them. */
async function bothBodies(build: () => ModelRequest): Promise<[string, string]> {
  server.requests.length = 0;
  await sendAsStreamText(build());
  await sendAsLoom(build());
  expect(server.requests).toHaveLength(2);
  const [before, now] = server.requests;
  expect(now.headers['content-type']).toEqual(before.headers['content-type']);
  expect(now.headers['user-agent']).toEqual(before.headers['user-agent']);
  return [before.raw, now.raw];
}

/** A model that records the call it is given and goes no further. */
function recording(resolved: ResolvedModel, calls: LanguageModelV3CallOptions[]): ResolvedModel {
  const spy = Object.create(resolved.model) as LanguageModelV3;
  spy.doStream = async (options) => {
    calls.push(options);
    throw new Error('recorded');
  };
  return { ...resolved, model: spy };
}

describe('the request a model receives', () => {
  it.each([
    ['an OpenAI-compatible server', 'scripted/m'],
    ['OpenAI Chat Completions at another address', 'openai/m'],
  ])('is byte for byte what streamText sent, for a transcript with every kind of part (%s)', async (_, model) => {
    const chat = await resolveModel(model, config, { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test' });
    const [before, now] = await bothBodies(() => request(chat));
    expect(now).toBe(before);
    // The body holds what the test set out to cover, so equality is not of two empty requests.
    const body = JSON.parse(now);
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'tool',
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
      'tool',
      'user',
    ]);
    expect(now).toContain('iVBORw0KGgo');
    expect(now).toContain('[Tool execution was interrupted]');
    expect(body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
      'read',
      'glob',
      'grep',
      'bash',
      'edit',
      'write',
      'todowrite',
      'webfetch',
    ]);
    expect(body).toMatchObject({ temperature: 0.3, top_p: 0.9, parallel_tool_calls: false, stream: true });
  });

  it('is byte for byte the same at the step limit (no tools, the reminder last) and for a compaction', async () => {
    const chat = await resolveModel('scripted/m', config, {});
    const [limitBefore, limitNow] = await bothBodies(() => ({ ...request(chat, { lastStep: true }), tools: [] }));
    expect(limitNow).toBe(limitBefore);
    expect(JSON.parse(limitNow).tools).toBeUndefined();
    const compaction = () => ({
      model: chat,
      system: '',
      messages: toModelMessages(history, { stripMedia: true, toolOutputLimit: 10 }),
      temperature: undefined,
    });
    const [compactBefore, compactNow] = await bothBodies(compaction);
    expect(compactNow).toBe(compactBefore);
    expect(compactNow).toContain('[Attached image/png: logo.png]');
  });

  it('gives the provider the call streamText gave it, for the Responses API too', async () => {
    for (const model of [
      await resolveModel('scripted/m', config, {}),
      await resolveModel('openai/gpt-5', {}, { OPENAI_API_KEY: 'sk-test' }),
    ]) {
      const before: LanguageModelV3CallOptions[] = [];
      const now: LanguageModelV3CallOptions[] = [];
      await sendAsStreamText(request(recording(model, before)));
      await sendAsLoom(request(recording(model, now)));
      expect(now).toHaveLength(1);
      const { abortSignal: _a, ...loom } = now[0];
      const { abortSignal: _b, ...reference } = before[0];
      expect(loom).toEqual(reference);
      expect(loom.prompt).toHaveLength(11);
    }
  });
});
