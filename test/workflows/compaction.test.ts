import { WorkflowFailedError } from '@temporalio/client';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSession } from '../../client/render/session-view.js';
import { CLEARED_TOOL_OUTPUT } from '../../core/models/compaction.js';
import type { ToolPart } from '../../core/records/part.js';
import type { RecordedRequest } from '../../testkit/model/scripted-model-script.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'notes.md': '# Notes\nremember the milk\n' } });
  await env.worker();
});
afterAll(() => env?.close());

/** A small window, set the way a user would: 3,000 tokens of context, 500 of output (2,500 usable). */
const smallModel = (model = 'tiny') => ({
  model: `scripted/${model}`,
});
const isCompaction = (r: RecordedRequest) => r.lastUser.includes('Write a detailed continuation prompt');
const usage = (prompt: number) => ({ prompt_tokens: prompt, completion_tokens: 10 });

describe('compaction', () => {
  it('compacts when a step fills the context, then goes on from the summary', async () => {
    env.model.setScript([
      {
        name: 'step1',
        when: { lastUser: 'Work through the notes', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'notes.md' } }], usage: usage(2600) },
      },
      {
        name: 'summary',
        when: { test: isCompaction },
        reply: { text: '## Goal\nWork through the notes.\n## Accomplished\nRead notes.md.' },
      },
      {
        name: 'after',
        when: { lastUser: 'Continue if you have next steps' },
        reply: { text: 'Finished after compacting.' },
      },
    ]);
    const { sessionId, result } = await env.start('Work through the notes', smallModel());
    expect((await result()).text).toBe('Finished after compacting.');

    const summary = env.model.requests.findLast((r) => r.rule === 'summary')!;
    expect(summary.toolNames).toEqual([]);
    expect(summary.system).toContain('You summarise a coding session');
    expect(JSON.stringify(summary.messages)).toContain('remember the milk');
    const after = env.model.requests.findLast((r) => r.rule === 'after')!;
    expect(after.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(JSON.stringify(after.messages[1])).toContain('What did we do so far?');
    expect(JSON.stringify(after.messages[2])).toContain('## Goal');
    expect(JSON.stringify(after.messages)).not.toContain('remember the milk');

    const messages = await env.store.messages(sessionId);
    expect(
      messages.map((m) => (m.info.role === 'assistant' ? (m.info.summary ? 'summary' : 'assistant') : m.parts[0].type)),
    ).toEqual(['text', 'assistant', 'compaction', 'summary', 'text', 'assistant']);
    await env.checkReplay(sessionId, 'auto-compaction');
  });

  it('replays the last user message after the provider reports a context overflow', async () => {
    env.model.setScript([
      { name: 'first', when: { lastUser: 'First question', lastRole: 'user' }, reply: { text: 'First answer.' } },
      {
        name: 'overflow',
        times: 1,
        when: { lastUser: 'Second question', lastRole: 'user' },
        reply: {
          status: 400,
          errorMessage: "This model's maximum context length is 3000 tokens (context_length_exceeded)",
        },
      },
      { name: 'summary', when: { test: isCompaction }, reply: { text: '## Goal\nAnswer questions.' } },
      { name: 'second', when: { lastUser: 'Second question' }, reply: { text: 'Second answer.' } },
    ]);
    const first = await env.start('First question', smallModel());
    await first.result();
    const second = await env.start('Second question', { ...smallModel(), sessionId: first.sessionId });
    expect((await second.result()).text).toBe('Second answer.');
    const summary = env.model.requests.findLast((r) => r.rule === 'summary')!;
    expect(JSON.stringify(summary.messages)).toContain('First question');
    expect(JSON.stringify(summary.messages)).not.toContain('Second question');
    const replayed = env.model.requests.findLast((r) => r.rule === 'second')!;
    expect(replayed.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(replayed.lastUser).toBe('Second question');
  });

  it('ends the run with a clear error when the compaction itself overflows', async () => {
    env.model.setScript([
      {
        name: 'overflow',
        when: { lastUser: 'Too much', lastRole: 'user' },
        reply: { status: 400, errorMessage: 'context_length_exceeded' },
      },
      {
        name: 'summary',
        when: { test: isCompaction },
        reply: { status: 400, errorMessage: 'context_length_exceeded' },
      },
    ]);
    const { sessionId, result } = await env.start('Too much', smallModel());
    const error = (await result().catch((e: unknown) => e)) as WorkflowFailedError;
    expect(error.cause).toMatchObject({ type: 'ContextOverflow' });
    expect(error.cause?.message).toContain('too large to compact');
    expect(await env.store.getSession(sessionId)).toMatchObject({ status: 'failed' });
  });

  it('compacts an idle session on request', async () => {
    env.model.setScript([
      { name: 'chat', when: { lastUser: 'Say hi', lastRole: 'user' }, reply: { text: 'hi' } },
      { name: 'summary', when: { test: isCompaction }, reply: { text: '## Goal\nGreetings.' } },
    ]);
    const chat = await env.start('Say hi');
    await chat.result();
    const compaction = await env.start('', { sessionId: chat.sessionId, compact: true });
    await compaction.result();
    const messages = await env.store.messages(chat.sessionId);
    expect(messages.at(-1)!.info).toMatchObject({ role: 'assistant', summary: true, agent: 'compaction' });
    expect(messages.at(-2)!.parts[0]).toMatchObject({ type: 'compaction', auto: false });
  });

  it('clears old tool outputs for the model after a turn, once enough would go, and keeps them in the store', async () => {
    // Seven files of about 9,700 tokens each as `read` shows them: the newest four fit in the 40k kept.
    const files = Array.from({ length: 7 }, (_, i) => `big${i + 1}.txt`);
    for (const [i, file] of files.entries())
      writeFileSync(join(env.project, file), `${String(i + 1).repeat(100)}\n`.repeat(360));
    env.model.setScript([
      {
        name: 'read-all',
        when: { lastUser: 'Read the big files', lastRole: 'user' },
        reply: { toolCalls: files.map((filePath) => ({ name: 'read', args: { filePath } })) },
      },
      { name: 'read-done', when: { lastUser: 'Read the big files' }, reply: { text: 'Read them.' } },
      { name: 'turn', when: { lastRole: 'user' }, reply: { text: 'Noted.' } },
    ]);
    const first = await env.start('Read the big files');
    await first.result();
    const sessionId = first.sessionId;
    for (const prompt of ['Second turn', 'Third turn', 'Fourth turn'])
      await (await env.start(prompt, { sessionId })).result();

    const toolOutputs = (prompt: string) =>
      env.model.requests
        .findLast((r) => r.lastUser === prompt)!
        .messages.filter((m) => m.role === 'tool')
        .map((m) => JSON.stringify(m.content));
    // Two turns later nothing is cleared yet: those are the recent turns.
    expect(toolOutputs('Third turn').filter((output) => output.includes(CLEARED_TOOL_OUTPUT))).toHaveLength(0);
    // After the third turn the oldest three (about 29k tokens, more than the 20k minimum) are cleared.
    const fourth = toolOutputs('Fourth turn');
    expect(fourth.map((output) => output.includes(CLEARED_TOOL_OUTPUT))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(fourth[6]).toContain('7777777');

    const messages = await env.store.messages(sessionId);
    const reads = messages.flatMap((m) => m.parts).filter((p): p is ToolPart => p.type === 'tool');
    expect(
      reads.map(
        (p) =>
          p.state.status === 'completed' &&
          p.state.output.includes(
            String((p.state.input as { filePath: string }).filePath)
              .slice(3, 4)
              .repeat(100),
          ),
      ),
    ).toEqual(files.map(() => true));
    expect(
      renderSession((await env.store.getSession(sessionId))!, messages).match(/output cleared for the model/g),
    ).toHaveLength(3);
  });
});
