import { modelMessageSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import type { AssistantMessage, MessageWithParts, UserMessage } from '../../core/records/message.js';
import { zeroTokens } from '../../core/records/message.js';
import type { Part, ToolPart, ToolState } from '../../core/records/part.js';
import { INTERRUPTED_TOOL_OUTPUT, toModelMessages } from '../../activities/model/transcript.js';

const SESSION = 'ses_1';
/** A part as a test writes it: the ids are filled in. */
type NewPart = Part extends infer P ? (P extends Part ? Omit<P, 'id' | 'sessionID' | 'messageID'> : never) : never;
let nextPart = 0;

function user(id: string, parts: NewPart[]): MessageWithParts {
  const info: UserMessage = {
    id,
    sessionID: SESSION,
    role: 'user',
    agent: 'build',
    model: 'openai/gpt-4o',
    time: { created: 1 },
  };
  return {
    info,
    parts: parts.map((part) => ({ ...part, id: `prt_${nextPart++}`, sessionID: SESSION, messageID: id }) as Part),
  };
}

function assistant(id: string, parts: NewPart[]): MessageWithParts {
  const info: AssistantMessage = {
    id,
    sessionID: SESSION,
    role: 'assistant',
    agent: 'build',
    model: 'openai/gpt-4o',
    parentID: 'msg_u',
    step: 1,
    time: { created: 2 },
    tokens: zeroTokens(),
    cost: 0,
  };
  return {
    info,
    parts: parts.map((part) => ({ ...part, id: `prt_${nextPart++}`, sessionID: SESSION, messageID: id }) as Part),
  };
}

const text = (value: string) => ({ type: 'text' as const, text: value });
const reasoning = (value: string) => ({ type: 'reasoning' as const, text: value, time: { start: 1, end: 2 } });
const tool = (callID: string, state: ToolState): Omit<ToolPart, 'id' | 'sessionID' | 'messageID'> => ({
  type: 'tool',
  callID,
  tool: 'read',
  state,
});

const input = { filePath: 'README.md' };
const completed: ToolState = {
  status: 'completed',
  input,
  output: '# Demo',
  title: 'README.md',
  metadata: {},
  time: { start: 1, end: 2 },
};
const failed: ToolState = { status: 'error', input, error: 'File not found: README.md', time: { start: 1, end: 2 } };

/** The result the model is shown for a single tool call in an assistant message. */
function resultFor(state: ToolState) {
  const messages = toModelMessages([assistant('msg_a', [tool('call_1', state)])]);
  expect(messages.map((m) => m.role)).toEqual(['assistant', 'tool']);
  return messages[1].content;
}

describe('toModelMessages', () => {
  it('shows user text and files', () => {
    const messages = toModelMessages([
      user('msg_u', [
        text('What is this?'),
        { type: 'file', mime: 'image/png', filename: 'shot.png', url: 'data:image/png;base64,AAAA' },
      ]),
    ]);
    expect(messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'file', data: 'data:image/png;base64,AAAA', mediaType: 'image/png', filename: 'shot.png' },
        ],
      },
    ]);
  });

  it('shows assistant reasoning and text in their order', () => {
    const messages = toModelMessages([assistant('msg_a', [reasoning('Think first.'), text('The answer.')])]);
    expect(messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Think first.' },
          { type: 'text', text: 'The answer.' },
        ],
      },
    ]);
  });

  it('shows a completed tool call as a call in the assistant message and its output in a tool message', () => {
    const messages = toModelMessages([assistant('msg_a', [text('Let me look.'), tool('call_1', completed)])]);
    expect(messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'read', input },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'call_1', toolName: 'read', output: { type: 'text', value: '# Demo' } },
        ],
      },
    ]);
  });

  it('shows a failed tool call as error text', () => {
    expect(resultFor(failed)).toEqual([
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'read',
        output: { type: 'error-text', value: 'File not found: README.md' },
      },
    ]);
  });

  it.each<[string, ToolState]>([
    ['pending', { status: 'pending', input, raw: '{}' }],
    ['running', { status: 'running', input, time: { start: 1 } }],
  ])('shows a %s tool call (one that never finished) as interrupted', (_, state) => {
    expect(resultFor(state)).toEqual([
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'read',
        output: { type: 'error-text', value: INTERRUPTED_TOOL_OUTPUT },
      },
    ]);
    expect(INTERRUPTED_TOOL_OUTPUT).toBe('[Tool execution was interrupted]');
  });

  it('puts the results of several calls in one tool message, in call order', () => {
    const messages = toModelMessages([assistant('msg_a', [tool('call_1', completed), tool('call_2', failed)])]);
    expect(messages[1].content).toMatchObject([{ toolCallId: 'call_1' }, { toolCallId: 'call_2' }]);
  });

  it('skips assistant messages with no content, and empty text', () => {
    const messages = toModelMessages([
      user('msg_u', [text('Hi')]),
      assistant('msg_empty', []),
      assistant('msg_blank', [text(''), reasoning('')]),
      assistant('msg_a', [text(''), text('Hello!')]),
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] },
    ]);
  });

  it('keeps the conversation order across turns', () => {
    const messages = toModelMessages([
      user('msg_1', [text('one')]),
      assistant('msg_2', [tool('call_1', completed)]),
      assistant('msg_3', [text('two')]),
      user('msg_4', [text('three')]),
    ]);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
  });

  it('produces messages the AI SDK accepts', () => {
    const messages = toModelMessages([
      user('msg_1', [
        text('one'),
        { type: 'file', mime: 'text/plain', filename: 'a.txt', url: 'data:text/plain;base64,aGk=' },
      ]),
      assistant('msg_2', [reasoning('hmm'), text('Looking.'), tool('call_1', completed), tool('call_2', failed)]),
      assistant('msg_3', [tool('call_3', { status: 'running', input, time: { start: 1 } })]),
    ]);
    for (const message of messages) expect(modelMessageSchema.safeParse(message).error).toBeUndefined();
  });

  it('hands files a tool attached to the model in a user message after the tool results', () => {
    const image = { mime: 'image/png', url: 'data:image/png;base64,iVBORw0K', filename: 'logo.png' };
    const messages = toModelMessages([
      user('msg_1', [text('What is in logo.png?')]),
      assistant('msg_2', [
        tool('call_1', { ...completed, output: 'Image logo.png is attached.', attachments: [image] }),
      ]),
    ]);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(messages[3].content).toEqual([
      { type: 'text', text: 'Files attached by the tool calls above:' },
      { type: 'file', data: image.url, mediaType: 'image/png', filename: 'logo.png' },
    ]);
    for (const message of messages) expect(modelMessageSchema.safeParse(message).error).toBeUndefined();
  });
});
