import { describe, expect, it } from 'vitest';
import { checkToolCall } from '../../core/tool-call.js';
import { repairTextToolCalls } from '../../activities/model/tool-call-repair.js';

// The real check the model activity uses: the tool is offered and its arguments validate.
const offered = ['read', 'glob', 'bash'];
const accepts = (tool: string, input: Record<string, unknown>) => checkToolCall({ partId: '', callId: '', tool, input }, offered).ok;
const repair = (text: string) => repairTextToolCalls(text, accepts);

describe('tool calls written as text', () => {
  it.each([
    ['Hermes tags', '<tool_call>\n{"name": "read", "arguments": {"filePath": "notes.md"}}\n</tool_call>'],
    ['a fenced JSON block', '```json\n{"name": "read", "arguments": {"filePath": "notes.md"}}\n```'],
    ['an answer that is only JSON', '{"name": "read", "parameters": {"filePath": "notes.md"}}'],
    ['"function" naming the tool', '```\n{"function": "read", "arguments": {"filePath": "notes.md"}}\n```'],
    ['OpenAI’s function object with string arguments', '{"type": "function", "function": {"name": "read", "arguments": "{\\"filePath\\": \\"notes.md\\"}"}}'],
    ['Qwen’s XML form', '<tool_call>\n<function=read>\n<parameter=filePath>\nnotes.md\n</parameter>\n</function>\n</tool_call>'],
    ['a fence inside a tag', '<tool_call>```json\n{"name": "read", "arguments": {"filePath": "notes.md"}}\n```</tool_call>'],
  ])('reads %s as a call', (_, text) => {
    expect(repair(text)).toEqual({ calls: [{ toolName: 'read', input: { filePath: 'notes.md' }, source: expect.any(String) }], text: '' });
  });

  it('keeps the prose around the call as the answer’s text', () => {
    const { calls, text } = repair('Let me look.\n<tool_call>{"name": "glob", "arguments": {"pattern": "**/*.md"}}</tool_call>');
    expect(calls.map((call) => call.toolName)).toEqual(['glob']);
    expect(text).toBe('Let me look.');
  });

  it('reads several calls, in order', () => {
    const { calls } = repair(
      '<tool_call>{"name": "read", "arguments": {"filePath": "a"}}</tool_call>\n<tool_call>{"name": "bash", "arguments": {"command": "ls", "description": "List"}}</tool_call>',
    );
    expect(calls.map((call) => [call.toolName, call.input])).toEqual([
      ['read', { filePath: 'a' }],
      ['bash', { command: 'ls', description: 'List' }],
    ]);
  });

  it.each([
    ['a tool that is not offered', '<tool_call>{"name": "launch", "arguments": {}}</tool_call>'],
    ['arguments that do not validate', '{"name": "read", "arguments": {"path": 3}}'],
    ['JSON that is not a call', '```json\n{"version": 2}\n```'],
    ['JSON that does not parse', '<tool_call>{"name": "read", "arguments": {</tool_call>'],
    ['prose that mentions a tool', 'I would call read on notes.md next.'],
  ])('leaves %s as text', (_, text) => {
    expect(repair(text)).toEqual({ calls: [], text });
  });
});
