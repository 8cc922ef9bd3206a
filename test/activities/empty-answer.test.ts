// An empty model answer is asked for again a bounded number of times, then fails, naming the
// model: through the real model activity code, the real provider and the scripted server.
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ModelMessage } from 'ai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnswerWriter } from '../../activities/model/answer-writer.js';
import { recordWorkspaceConfig, workspaceConfigId } from '../../activities/config/workspace-config.js';
import { createCompactionActivities } from '../../activities/model/compact-activities.js';
import { ModelFailure } from '../../activities/model/failure-kinds.js';
import { EMPTY_ANSWER_REQUESTS, NO_FINAL_ANSWER, type StreamedAnswer } from '../../activities/model/stream-answer.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import type { AssistantMessage } from '../../core/records/message.js';
import { assistantMessage, failureOf, streamFromScript } from '../../testkit/model/model-activity.js';
import { startScriptedModel, type ScriptedModel } from '../../testkit/model/scripted-model.js';
import type { ScriptRule } from '../../testkit/model/scripted-model-script.js';

const MODEL = 'scripted/test-model';
let dir: string;
let store: SqliteSessionStore;
let server: ScriptedModel;
let message: AssistantMessage;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loom-empty-'));
  store = new SqliteSessionStore(join(dir, 'loom.db'));
  server = await startScriptedModel();
  message = assistantMessage('ses_empty');
});

afterEach(async () => {
  await server.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function callModel(rules: ScriptRule[]): Promise<StreamedAnswer> {
  return streamFromScript(server, store, message, rules);
}

describe('an empty model answer', () => {
  it('is asked for again, then fails for good with ModelEmptyResponse naming the model', async () => {
    const failure = await failureOf(callModel([{ reply: { emptyStream: true } }]));
    expect(failure.type).toBe(ModelFailure.emptyResponse);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(
      /^scripted\/test-model returned an empty answer 3 times in a row \(no text, reasoning or tool call; last finish reason: \w+\)$/,
    );
    expect(server.requests).toHaveLength(EMPTY_ANSWER_REQUESTS);
    // Never recorded as done: no completion time, no parts.
    const stored = await store.getMessage(message.id);
    expect(stored?.time).toEqual({ created: 1 });
    expect(await store.parts(message.id)).toEqual([]);
  });

  it('counts a clean "stop" with no content, and blank text, as empty', async () => {
    const failure = await failureOf(callModel([{ reply: {}, times: 2 }, { reply: { text: ' \n ' } }]));
    expect(failure.type).toBe(ModelFailure.emptyResponse);
    expect(failure.message).toContain('last finish reason: stop');
    expect(server.requests).toHaveLength(3);
  });

  it('is replaced by the first answer with content, which alone is stored', async () => {
    const answer = await callModel([
      { reply: { emptyStream: true }, times: 1 },
      { reply: { text: ' ', usage: { prompt_tokens: 10, completion_tokens: 1 } }, times: 1 },
      { reply: { text: 'Hello!', usage: { prompt_tokens: 10, completion_tokens: 2 } } },
    ]);
    expect(answer).toMatchObject({ text: 'Hello!', finish: 'stop' });
    expect(server.requests).toHaveLength(3);
    const parts = await store.parts(message.id);
    expect(parts.map((part) => (part.type === 'text' ? part.text : part.type))).toEqual(['Hello!']);
    // Every request's tokens are counted: the empty ones cost too.
    expect((await store.getMessage(message.id)) as AssistantMessage).toMatchObject({
      finish: 'stop',
      tokens: { input: 20, output: 3 },
    });
  });

  it('is not an answer with only a tool call', async () => {
    const answer = await callModel([
      { reply: { emptyStream: true }, times: 1 },
      { reply: { toolCalls: [{ name: 'read', args: { filePath: 'a' } }] } },
    ]);
    expect(answer.toolCalls.map((call) => call.tool)).toEqual(['read']);
    expect(server.requests).toHaveLength(2);
  });

  it('is not an answer with only reasoning (which chat completions do not surface, so that path is checked on the writer)', async () => {
    const writer = new AnswerWriter(store, { sessionID: message.sessionID, messageID: message.id });
    expect(writer.hasContent()).toBe(false);
    writer.text('t1', '  ');
    expect(writer.hasContent()).toBe(false);
    writer.reasoning('r1', 'Nothing to say.');
    expect(writer.hasContent()).toBe(true);
    await writer.flush();
  });
});

describe('an empty compaction summary', () => {
  it('fails the compaction instead of leaving an empty summary', async () => {
    const project = join(dir, 'project');
    mkdirSync(project);
    const env = {
      LOOM_CONFIG_DIR: join(dir, 'config'),
      LOOM_CONFIG_CONTENT: JSON.stringify({
        provider: { scripted: { options: { baseURL: server.url, apiKey: 'test' } } },
      }),
    };
    server.setScript([{ reply: { emptyStream: true } }]);
    const { compactSession } = createCompactionActivities({ store, env, dataDir: dir });
    const { record } = recordWorkspaceConfig(project, env);
    const configId = workspaceConfigId(record);
    await store.saveWorkspaceConfig(configId, record);
    const failure = await failureOf(
      new MockActivityEnvironment().run(compactSession, {
        sessionId: 'ses_empty',
        messageId: message.id,
        parentMessageId: 'msg_user',
        model: MODEL,
        directory: project,
        step: 2,
        overflow: false,
        workspaceConfigId: configId,
      }),
    );
    expect(failure.type).toBe(ModelFailure.emptyResponse);
    expect(failure.message).toContain('scripted/test-model returned an empty summary 3 times');
    expect(await store.getMessage(message.id)).toMatchObject({ summary: true, time: { created: expect.any(Number) } });
    expect(((await store.getMessage(message.id)) as AssistantMessage).time.completed).toBeUndefined();
  });
});

describe('an empty answer after tool results', () => {
  // The model read a file and edited it: what is left is to say so, and small models often just stop.
  const afterTools: ModelMessage[] = [
    { role: 'user', content: 'Fix the bug in calc.py' },
    {
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: 'call_1',
          toolName: 'edit',
          input: { filePath: 'calc.py', oldString: 'a - b', newString: 'a + b' },
        },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_1',
          toolName: 'edit',
          output: { type: 'text', value: 'Edit applied successfully.' },
        },
      ],
    },
  ];

  it('is asked once more with a nudge for a one-line summary, which becomes the answer', async () => {
    const answer = await streamFromScript(
      server,
      store,
      message,
      [{ reply: {}, times: 1 }, { reply: { text: 'Fixed add in calc.py; done.' } }],
      { messages: afterTools },
    );
    expect(answer.text).toBe('Fixed add in calc.py; done.');
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[0].messages)).not.toContain('You answered nothing');
    expect(server.requests[1].messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('You answered nothing after the tool calls above'),
    });
  });

  it('ends the turn as done, with a visible note, when the nudge gets nothing either', async () => {
    const answer = await streamFromScript(server, store, message, [{ reply: { emptyStream: true } }], {
      messages: afterTools,
    });
    expect(answer).toMatchObject({ finish: 'stop', toolCalls: [], text: NO_FINAL_ANSWER });
    expect(server.requests).toHaveLength(2);
    const [note] = await store.parts(message.id);
    expect(note).toMatchObject({ type: 'text', synthetic: true, text: NO_FINAL_ANSWER });
    expect((await store.getMessage(message.id))?.time).toMatchObject({ completed: expect.any(Number) });
  });
});
