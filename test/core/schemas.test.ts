import { describe, expect, it } from 'vitest';
import { addTokens, Message, zeroTokens, type Tokens } from '../../core/records/message.js';
import { Part, ToolState } from '../../core/records/part.js';
import { defaultTitle, Session } from '../../core/records/session.js';

const ids = { id: 'prt_1', sessionID: 'ses_1', messageID: 'msg_1' };
const toolPart = (state: unknown) => ({ ...ids, type: 'tool', callID: 'call_1', tool: 'read', state });

const tokens = (input: number, output: number, reasoning: number, read: number, write: number): Tokens => ({
  input,
  output,
  reasoning,
  cache: { read, write },
});

const assistant = {
  id: 'msg_2',
  sessionID: 'ses_1',
  role: 'assistant',
  agent: 'build',
  model: 'openai/gpt-4o',
  parentID: 'msg_1',
  step: 1,
  time: { created: 1 },
  tokens: zeroTokens(),
  cost: 0,
};

describe('tool part states', () => {
  const input = { filePath: 'a.ts' };

  it('parses pending with its input and the raw text the model sent', () => {
    expect(ToolState.parse({ status: 'pending', input, raw: '{"filePath":"a.ts"}' })).toMatchObject({
      status: 'pending',
    });
    expect(ToolState.safeParse({ status: 'pending', input }).success).toBe(false);
  });

  it('parses running with a start time', () => {
    expect(ToolState.parse({ status: 'running', input, time: { start: 1 } })).toMatchObject({ status: 'running' });
    expect(ToolState.safeParse({ status: 'running', input }).success).toBe(false);
  });

  it('parses completed with output, title, metadata and both times', () => {
    const completed = {
      status: 'completed',
      input,
      output: 'hello',
      title: 'a.ts',
      metadata: {},
      time: { start: 1, end: 2 },
    };
    expect(ToolState.parse(completed)).toEqual(completed);
  });

  it('rejects completed without output', () => {
    const result = ToolState.safeParse({
      status: 'completed',
      input,
      title: 'a.ts',
      metadata: {},
      time: { start: 1, end: 2 },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain('output');
  });

  it('rejects completed without an end time', () => {
    expect(
      ToolState.safeParse({ status: 'completed', input, output: 'x', title: 't', metadata: {}, time: { start: 1 } })
        .success,
    ).toBe(false);
  });

  it('parses error with the error message, and rejects it without one', () => {
    expect(
      ToolState.parse({ status: 'error', input, error: 'File not found', time: { start: 1, end: 2 } }),
    ).toMatchObject({
      error: 'File not found',
    });
    expect(ToolState.safeParse({ status: 'error', input, time: { start: 1, end: 2 } }).success).toBe(false);
  });

  it('rejects an unknown status', () => {
    expect(ToolState.safeParse({ status: 'done', input }).success).toBe(false);
  });

  it('parses as part of a tool part', () => {
    const part = Part.parse(toolPart({ status: 'pending', input, raw: '' }));
    expect(part.type).toBe('tool');
    expect(Part.safeParse(toolPart({ status: 'completed', input })).success).toBe(false);
  });
});

describe('parts', () => {
  it('tells parts apart by type', () => {
    expect(Part.parse({ ...ids, type: 'text', text: 'hi' })).toEqual({ ...ids, type: 'text', text: 'hi' });
    expect(Part.parse({ ...ids, type: 'file', mime: 'text/plain', url: 'file:///a.txt' }).type).toBe('file');
    expect(Part.safeParse({ ...ids, type: 'reasoning', text: 'hmm' }).success).toBe(false); // needs time
    expect(Part.safeParse({ ...ids, type: 'image', url: 'x' }).success).toBe(false);
  });
});

describe('messages', () => {
  it('parses a user message', () => {
    const user = {
      id: 'msg_1',
      sessionID: 'ses_1',
      role: 'user',
      agent: 'build',
      model: 'openai/gpt-4o',
      time: { created: 1 },
    };
    expect(Message.parse(user)).toEqual(user);
  });

  it('parses an assistant message, with an optional error', () => {
    expect(Message.parse(assistant)).toEqual(assistant);
    const failed = {
      ...assistant,
      error: { name: 'ModelAuthError', message: 'no key', retryable: false, statusCode: 401 },
    };
    expect(Message.parse(failed)).toEqual(failed);
  });

  it('requires the fields of the role it claims', () => {
    const { parentID: _, ...withoutParent } = assistant;
    expect(Message.safeParse(withoutParent).success).toBe(false);
    expect(Message.safeParse({ ...assistant, role: 'system' }).success).toBe(false);
  });
});

describe('addTokens', () => {
  it('adds every count, including the cache', () => {
    expect(addTokens(tokens(10, 20, 3, 4, 5), tokens(1, 2, 3, 40, 50))).toEqual(tokens(11, 22, 6, 44, 55));
  });

  it('leaves its arguments alone and treats zeroTokens as the identity', () => {
    const a = tokens(1, 2, 3, 4, 5);
    expect(addTokens(a, zeroTokens())).toEqual(a);
    expect(addTokens(zeroTokens(), a)).toEqual(a);
    expect(a).toEqual(tokens(1, 2, 3, 4, 5));
  });
});

describe('sessions', () => {
  it('accept only the known statuses', () => {
    const session = {
      id: 'ses_1',
      title: 't',
      agent: 'build',
      model: 'openai/gpt-4o',
      directory: '/p',
      status: 'idle',
      time: { created: 1, updated: 1 },
    };
    expect(Session.parse(session)).toEqual(session);
    expect(Session.safeParse({ ...session, status: 'done' }).success).toBe(false);
  });

  it('get a default title saying whether they are a child and when they started', () => {
    expect(defaultTitle(false, Date.UTC(2025, 0, 2))).toBe('New session - 2025-01-02T00:00:00.000Z');
    expect(defaultTitle(true, Date.UTC(2025, 0, 2))).toBe('Child session - 2025-01-02T00:00:00.000Z');
  });
});
