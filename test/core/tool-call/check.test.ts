import { describe, expect, it } from 'vitest';
import { checkToolCall, type ToolCall } from '../../../core/tool-call/check.js';

const OFFERED = ['read', 'list', 'glob', 'grep'];

function call(tool: string, input: unknown): ToolCall {
  return { partId: 'prt_1', callId: 'call_1', tool, input };
}

function errorOf(result: ReturnType<typeof checkToolCall>): string {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return result.error;
}

describe('checkToolCall', () => {
  it('accepts a valid call and returns its parsed input', () => {
    const result = checkToolCall(call('read', { filePath: 'src/a.ts', offset: 3 }), OFFERED);
    expect(result).toEqual({
      ok: true,
      call: call('read', { filePath: 'src/a.ts', offset: 3 }),
      input: { filePath: 'src/a.ts', offset: 3 },
    });
  });

  it('repairs a wrongly cased tool name when the lower-case tool is offered', () => {
    const result = checkToolCall(call('Read', { filePath: 'README.md' }), OFFERED);
    expect(result.ok).toBe(true);
    expect(result.call.tool).toBe('read');
  });

  it('does not repair the case to a tool that was not offered', () => {
    const error = errorOf(checkToolCall(call('Grep', { pattern: 'x' }), ['read']));
    expect(error).toBe('Unknown tool "Grep". Available tools: read');
  });

  it('rejects an unknown tool, naming it and listing the offered tools', () => {
    const error = errorOf(checkToolCall(call('write', { filePath: 'a' }), OFFERED));
    expect(error).toBe('Unknown tool "write". Available tools: read, list, glob, grep');
  });

  it('treats a tool Loom has but did not offer as unknown', () => {
    const error = errorOf(checkToolCall(call('grep', { pattern: 'TODO' }), ['read', 'list']));
    expect(error).toBe('Unknown tool "grep". Available tools: read, list');
  });

  it('says "none" when no tools were offered', () => {
    expect(errorOf(checkToolCall(call('read', { filePath: 'a' }), []))).toContain('Available tools: none');
  });

  it('rejects input that arrived as a string (JSON that did not parse), quoting it', () => {
    const error = errorOf(checkToolCall(call('read', '{"filePath": "a.ts"'), OFFERED));
    expect(error).toContain('not valid JSON');
    expect(error).toContain('{"filePath": "a.ts"');
  });

  it('rejects invalid arguments, naming the tool and the bad field', () => {
    const error = errorOf(checkToolCall(call('read', { filePath: 'a.ts', offset: 0 }), OFFERED));
    expect(error).toContain('"read"');
    expect(error).toContain('→ at offset');
    expect(error).toContain('Call it again with corrected arguments.');
  });

  it('rejects a missing required argument, naming it', () => {
    const error = errorOf(checkToolCall(call('glob', {}), OFFERED));
    expect(error).toContain('"glob"');
    expect(error).toContain('→ at pattern');
  });

  it('treats a missing input as no arguments', () => {
    expect(checkToolCall(call('list', undefined), OFFERED)).toMatchObject({ ok: true, input: {} });
  });
});
