import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../support/loom-env.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: { 'README.md': '# Demo\nhello from the readme\n', 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 2;\n' },
  });
  await env.worker();
});
afterAll(() => env?.close());

describe('sessionWorkflow', () => {
  it('runs read and glob calls the model makes, shows it the results, and returns its answer', async () => {
    env.model.setScript([
      {
        name: 'explore',
        when: { lastUser: 'What is in this project?', lastRole: 'user' },
        reply: {
          text: 'Let me look.',
          toolCalls: [
            { name: 'read', args: { filePath: 'README.md' } },
            { name: 'glob', args: { pattern: 'src/**/*.ts' } },
          ],
        },
      },
      { name: 'answer', when: { lastRole: 'tool' }, reply: { text: 'A demo with two TypeScript files.' } },
    ]);
    const { sessionId, result } = await env.start('What is in this project?');
    const outcome = await result();
    expect(outcome).toMatchObject({ sessionId, status: 'completed', text: 'A demo with two TypeScript files.', finish: 'stop', steps: 2 });
    expect(outcome.tokens.input).toBeGreaterThan(0);

    const second = env.model.requests.find((r) => r.rule === 'answer')!;
    const toolResults = second.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(toolResults).toHaveLength(2);
    expect(toolResults[0]).toContain('hello from the readme');
    expect(toolResults[1]).toMatch(/src\/a\.ts[\s\S]*src\/b\.ts|src\/b\.ts[\s\S]*src\/a\.ts/);
    expect(second.toolNames.sort()).toEqual(['glob', 'grep', 'list', 'read']);

    const messages = await env.store.messages(sessionId);
    expect(messages.map((m) => m.info.role)).toEqual(['user', 'assistant', 'assistant']);
    const tools = messages[1].parts.filter((p) => p.type === 'tool');
    expect(tools.map((p) => [p.tool, p.state.status])).toEqual([
      ['read', 'completed'],
      ['glob', 'completed'],
    ]);
    const session = await env.store.getSession(sessionId);
    expect(session).toMatchObject({ status: 'idle', agent: 'build' });
  });
});
