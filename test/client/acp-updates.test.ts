import { describe, expect, it } from 'vitest';
import type { Message } from '../../core/records/message.js';
import type { Part, ToolPart } from '../../core/records/part.js';
import { unifiedDiff } from '../../activities/tools/files/unified-diff.js';
import { promptText } from '../../client/acp/prompt-text.js';
import { SessionUpdates } from '../../client/acp/session-updates.js';
import { fileBefore, toolCallOf } from '../../client/acp/tool-calls.js';

const base = { sessionID: 'ses_1', messageID: 'msg_a' };
const assistant: Message = {
  id: 'msg_a',
  sessionID: 'ses_1',
  role: 'assistant',
  agent: 'build',
  model: 'scripted/test-model',
  parentID: 'msg_u',
  step: 1,
  time: { created: 1 },
  tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  cost: 0,
};
const user: Message = {
  id: 'msg_u',
  sessionID: 'ses_1',
  role: 'user',
  agent: 'build',
  model: 'm',
  time: { created: 0 },
};

const tool = (state: ToolPart['state'], tool = 'edit', callID = 'call_1'): ToolPart => ({
  ...base,
  id: `prt_${callID}`,
  type: 'tool',
  callID,
  tool,
  state,
});
const editInput = { filePath: 'src/a.ts', oldString: 'one', newString: 'two' };

describe('a session as ACP updates', () => {
  it('streams text as deltas, reasoning as thoughts, and sends the user prompt only when loading', () => {
    const live = new SessionUpdates('/p', { users: false });
    const text = (value: string): Part => ({ ...base, id: 'prt_t', type: 'text', text: value });
    const prompt: Part = { sessionID: 'ses_1', messageID: 'msg_u', id: 'prt_u', type: 'text', text: 'hi' };
    expect(live.next([user, assistant], [prompt, text('Hel')])).toEqual([
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hel' } },
    ]);
    expect(live.next([], [text('Hello')])).toEqual([
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'lo' } },
    ]);
    expect(live.next([], [text('Hello')])).toEqual([]);
    const thought: Part = { ...base, id: 'prt_r', type: 'reasoning', text: 'hmm', time: { start: 1 } };
    expect(live.next([], [thought])[0]).toMatchObject({ sessionUpdate: 'agent_thought_chunk' });
    const loading = new SessionUpdates('/p', { users: true });
    expect(loading.next([user], [prompt])).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hi' } },
    ]);
  });

  it('sends a tool call once, then an update each time it changes, with its diff, location and output', () => {
    const updates = new SessionUpdates('/p', { users: false });
    const [first] = updates.next([], [tool({ status: 'pending', input: editInput, raw: '' })]);
    expect(first).toMatchObject({
      sessionUpdate: 'tool_call',
      toolCallId: 'call_1',
      title: 'edit src/a.ts',
      kind: 'edit',
      status: 'pending',
      locations: [{ path: '/p/src/a.ts' }],
      content: [{ type: 'diff', path: '/p/src/a.ts', oldText: 'one', newText: 'two' }],
    });
    const running = tool({ status: 'running', input: editInput, time: { start: 1 } });
    expect(updates.next([], [running])).toMatchObject([{ sessionUpdate: 'tool_call_update', status: 'in_progress' }]);
    expect(updates.next([], [running])).toEqual([]);
    const done = tool({
      status: 'completed',
      input: editInput,
      output: 'Edited src/a.ts',
      title: 'src/a.ts',
      metadata: {},
      time: { start: 1, end: 2 },
    });
    const [update] = updates.next([], [done]);
    expect(update).toMatchObject({ sessionUpdate: 'tool_call_update', status: 'completed' });
    expect((update as { content: unknown[] }).content).toContainEqual({
      type: 'content',
      content: { type: 'text', text: 'Edited src/a.ts' },
    });
    const failed = tool(
      { status: 'error', input: { command: 'false' }, error: 'exit 1', time: { start: 1, end: 2 } },
      'bash',
      'call_2',
    );
    expect(updates.next([], [failed])).toMatchObject([
      { sessionUpdate: 'tool_call', kind: 'execute', status: 'failed' },
    ]);
  });

  it('gives a write over a file the whole text it replaced, from the diff the write recorded', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\nh\n';
    const after = 'a\nb\nc\nD\ne\nf\ng\nh\n';
    expect(fileBefore(after, unifiedDiff('x.txt', before, after).diff)).toBe(before);
    const call = toolCallOf(
      tool(
        {
          status: 'completed',
          input: { filePath: '/abs/x.txt', content: after },
          output: 'Wrote x.txt',
          title: 'x.txt',
          metadata: { ...unifiedDiff('x.txt', before, after), created: false },
          time: { start: 1, end: 2 },
        },
        'write',
      ),
      '/p',
    );
    expect(call.content![0]).toEqual({ type: 'diff', path: '/abs/x.txt', oldText: before, newText: after });
  });

  it('turns a todo list into a plan (cancelled items left out), and a task call shows its subagent steps', () => {
    const updates = new SessionUpdates('/p', { users: false });
    const todos = [
      { id: '1', content: 'Read', status: 'completed', priority: 'high' },
      { id: '2', content: 'Write', status: 'in_progress', priority: 'medium' },
      { id: '3', content: 'Drop', status: 'cancelled', priority: 'low' },
    ];
    const sent = updates.next(
      [],
      [
        tool(
          {
            status: 'completed',
            input: { todos },
            output: '[]',
            title: '1 open of 3',
            metadata: { todos },
            time: { start: 1, end: 2 },
          },
          'todowrite',
        ),
      ],
    );
    expect(sent.at(-1)).toEqual({
      sessionUpdate: 'plan',
      entries: [
        { content: 'Read', priority: 'high', status: 'completed' },
        { content: 'Write', priority: 'medium', status: 'in_progress' },
      ],
    });
    const task = toolCallOf(
      tool(
        {
          status: 'running',
          input: { description: 'Find', prompt: 'List', subagent_type: 'explore' },
          metadata: {
            sessionId: 'ses_child',
            summary: [{ id: 'p1', tool: 'glob', status: 'completed', description: 'glob **/*.md' }],
          },
          time: { start: 1 },
        },
        'task',
      ),
      '/p',
    );
    expect(task.content).toEqual([
      { type: 'content', content: { type: 'text', text: 'subagent session ses_child\n✓ glob **/*.md' } },
    ]);
  });
});

describe("an editor's prompt as Loom's text", () => {
  it('keeps text, puts an embedded file in with its name, and makes a link a @reference', () => {
    expect(
      promptText(
        [
          { type: 'text', text: 'Explain' },
          { type: 'resource_link', uri: 'file:///p/src/a.ts', name: 'a.ts' },
          { type: 'resource', resource: { uri: 'file:///p/notes.md', text: '# Notes' } },
        ],
        '/p',
      ),
    ).toBe('Explain\n\n@src/a.ts\n\nContents of notes.md:\n```\n# Notes\n```');
  });

  it('refuses an image by its index, and an empty prompt', () => {
    expect(() =>
      promptText(
        [
          { type: 'text', text: 'see' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        ],
        '/p',
      ),
    ).toThrow('prompt block 1 is image');
    expect(() => promptText([{ type: 'text', text: '  ' }], '/p')).toThrow('the prompt is empty');
  });
});
