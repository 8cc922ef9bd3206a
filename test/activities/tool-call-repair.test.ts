import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkToolCall } from '../../core/tool-call/check.js';
import { repairTextToolCalls } from '../../activities/model/tool-call-repair.js';

// The real check the model activity uses: the tool is offered and its arguments validate.
const offered = ['read', 'glob', 'bash'];
const accepts = (tool: string, input: Record<string, unknown>) =>
  checkToolCall({ partId: '', callId: '', tool, input }, offered).ok;
const repair = (text: string) => repairTextToolCalls(text, accepts);

describe('tool calls written as text', () => {
  it.each([
    ['Hermes tags', '<tool_call>\n{"name": "read", "arguments": {"filePath": "notes.md"}}\n</tool_call>'],
    ['a fenced JSON block', '```json\n{"name": "read", "arguments": {"filePath": "notes.md"}}\n```'],
    ['an answer that is only JSON', '{"name": "read", "parameters": {"filePath": "notes.md"}}'],
    ['"function" naming the tool', '```\n{"function": "read", "arguments": {"filePath": "notes.md"}}\n```'],
    [
      'OpenAI’s function object with string arguments',
      '{"type": "function", "function": {"name": "read", "arguments": "{\\"filePath\\": \\"notes.md\\"}"}}',
    ],
    [
      'Qwen’s XML form',
      '<tool_call>\n<function=read>\n<parameter=filePath>\nnotes.md\n</parameter>\n</function>\n</tool_call>',
    ],
    [
      'a fence inside a tag',
      '<tool_call>```json\n{"name": "read", "arguments": {"filePath": "notes.md"}}\n```</tool_call>',
    ],
  ])('reads %s as a call', (_, text) => {
    expect(repair(text)).toEqual({
      calls: [{ toolName: 'read', input: { filePath: 'notes.md' }, source: expect.any(String) }],
      text: '',
    });
  });

  it('keeps the prose around the call as the answer’s text', () => {
    const { calls, text } = repair(
      'Let me look.\n<tool_call>{"name": "glob", "arguments": {"pattern": "**/*.md"}}</tool_call>',
    );
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

describe('the shapes small models write', () => {
  it.each([
    [
      'a list of calls in one JSON array',
      '[{"name": "read", "arguments": {"filePath": "a"}}, {"name": "glob", "arguments": {"pattern": "*.md"}}]',
      ['read', 'glob'],
    ],
    ['doubled braces', '{{"name": "read", "arguments": {{"filePath": "a"}}}}', ['read']],
    [
      'null for the arguments it leaves out',
      '{"name": "read", "arguments": {"filePath": "a", "offset": null, "limit": null}}',
      ['read'],
    ],
    ['the arguments beside the name', '{"name": "glob", "pattern": "**/*.py"}', ['glob']],
    [
      'one call a line inside <tools>',
      '<tools>\n{"name": "read", "arguments": {"filePath": "a"}}\n{"name": "glob", "arguments": {"pattern": "*"}}\n</tools>',
      ['read', 'glob'],
    ],
    ['an element named for the tool', '<read>\n  <filePath>a</filePath>\n  <limit>20</limit>\n</read>', ['read']],
    [
      'a <function> with <name> and <arguments>',
      '<tools><function><name>glob</name><arguments><pattern>**/*.ts</pattern></arguments></function></tools>',
      ['glob'],
    ],
    [
      'the same call as markup and as JSON',
      '<read><filePath>a</filePath></read>\n```json\n{"name": "read", "arguments": {"filePath": "a"}}\n```',
      ['read'],
    ],
    ['a comma before the closing brace', '{"name": "read", "arguments": {"filePath": "a",},}', ['read']],
  ])('reads %s', (_, text, tools) => {
    expect(repair(text).calls.map((call) => call.toolName)).toEqual(tools);
  });

  it('reads a docstring’s """ left unescaped in a string, as Qwen2.5-Coder-1.5B wrote it fixing calc.py', () => {
    const answer =
      '```json\n{\n  "name": "edit",\n  "arguments": {\n    "filePath": "calc.py",\n    "oldString": "def add(a, b):\\n    """Return the sum."""\\n    return a - b\\n",\n    "newString": "def add(a, b):\\n    """Return the sum."""\\n    return a + b\\n"\n  }\n}\n```';
    const edits = (tool: string, input: Record<string, unknown>) =>
      checkToolCall({ partId: '', callId: '', tool, input }, ['edit']).ok;
    const [call] = repairTextToolCalls(answer, edits).calls;
    expect(call.input).toEqual({
      filePath: 'calc.py',
      oldString: 'def add(a, b):\n    """Return the sum."""\n    return a - b\n',
      newString: 'def add(a, b):\n    """Return the sum."""\n    return a + b\n',
    });
  });

  it('drops the tool response it invented after its calls', () => {
    const { text } = repair(
      '{"name": "read", "arguments": {"filePath": "a"}}\n```\n\n<task_metadata>\nsession_id: ses_x\n</task_metadata>\n</tool_response>',
    );
    expect(text).toBe('');
  });
});

/**
 * Every answer recorded from Qwen2.5-Coder 0.5B and 1.5B under llama.cpp while they drove Loom (see
 * test/fixtures/real-model-answers.jsonl, with the tools offered each time): the calls each becomes,
 * or why it stays text.
 */
describe('answers recorded from real small models', () => {
  const answers = readFileSync(new URL('../fixtures/real-model-answers.jsonl', import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { model: string; tools: string[]; answer: string });
  const prose = 'prose: it names no tool call';
  const empty = 'empty: the model said nothing';
  const expected: Record<number, string[] | string> = {
    0: ['task'],
    1: ['list'],
    2: ['task', 'list'],
    3: prose,
    4: ['read', 'edit'],
    5: prose,
    6: ['edit'],
    7: empty,
    8: empty,
    9: empty,
    10: ['read'],
    11: empty,
    12: ['write'],
    13: ['write'],
    14: empty,
    15: ['read', 'edit'],
    16: ['edit'],
    17: ['edit'],
    18: 'a tool response it invented, which names no call',
    19: ['task'],
    20: ['glob'],
    21: ['task'],
    22: ['list'],
    23: prose,
    24: ['task_status'],
    25: empty,
    26: empty,
    27: empty,
    28: ['task'],
    29: ['list'],
    30: prose,
    31: prose,
    32: ['read', 'edit'],
    33: ['task'],
    34: prose,
    35: prose,
    36: prose,
    37: prose,
    38: prose,
    39: prose,
    40: 'a task call without its required description, which the model is better told about in words than run',
    41: ['task'],
    42: ['read'],
    43: ['task'],
    44: ['list'],
    45: ['task', 'list'],
    46: prose,
    47: ['edit'],
    48: empty,
    49: empty,
    50: empty,
    51: ['read'],
    52: empty,
    53: ['write'],
    54: ['write'],
    55: empty,
    56: ['read', 'edit'],
  };

  it('has an expectation for every recorded answer', () => {
    expect(Object.keys(expected)).toHaveLength(answers.length);
  });

  it.each(answers.map((answer, index) => [index, answer] as const))('answer %i', (index, { tools, answer }) => {
    const accepts = (tool: string, input: Record<string, unknown>) =>
      checkToolCall({ partId: '', callId: '', tool, input }, tools).ok;
    const { calls, text } = repairTextToolCalls(answer, accepts);
    const want = expected[index];
    if (typeof want === 'string') {
      expect(calls, want).toEqual([]);
      expect(text).toBe(answer);
    } else {
      expect(calls.map((call) => call.toolName)).toEqual(want);
    }
  });
});
