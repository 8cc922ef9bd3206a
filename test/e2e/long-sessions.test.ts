import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson } from '../../testkit/loom/run-loom.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({ config: { auto_title: true } });
});
afterAll(() => env?.close());

describe('titles and compaction from the CLI', () => {
  it('names a new session with the title agent, without holding up the answer', async () => {
    env.model.setScript([
      {
        name: 'title',
        when: { system: 'You write a title for a conversation' },
        reply: { text: '"Fixing the login bug"' },
      },
      { name: 'answer', when: { lastUser: 'Why does login fail?' }, reply: { text: 'Because of the cookie.' } },
    ]);
    const run = parseJson(await env.loom(['run', '--json', '-m', 'scripted/test-model', 'Why does login fail?']));
    expect(run).toMatchObject({ status: 'completed', text: 'Because of the cookie.' });
    const title = env.model.requests.find((r) => r.rule === 'title')!;
    expect(title.lastUser).toBe('Generate a title for this conversation:\nWhy does login fail?');
    expect(title.toolNames).toEqual([]);
    expect((await env.store.getSession(run.sessionId))!.title).toBe('Fixing the login bug');
    expect((await env.loom(['ls'])).stdout).toContain('Fixing the login bug');
    await env.worker(); // A query of a finished run is answered by a worker replaying it.
    const metadata = await env.client.workflow
      .getHandle(run.sessionId)
      .query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toContain('Fixing the login bug');
  });

  it('compacts an idle session with loom compact', async () => {
    env.model.setScript([
      { name: 'title', when: { system: 'You write a title for a conversation' }, reply: { text: 'Chat' } },
      {
        name: 'chat',
        when: { lastUser: 'Tell me about the parser', lastRole: 'user' },
        reply: { text: 'It is recursive descent.' },
      },
      {
        name: 'summary',
        when: { lastUser: /Write a detailed continuation prompt/ },
        reply: { text: '## Goal\nUnderstand the parser.' },
      },
    ]);
    const run = parseJson(await env.loom(['run', '--json', '-m', 'scripted/test-model', 'Tell me about the parser']));
    const compacted = await env.loom(['compact', run.sessionId, '--json']);
    expect(parseJson(compacted)).toMatchObject({ sessionId: run.sessionId, status: 'completed' });
    expect((await env.loom(['show', run.sessionId])).stdout).toContain('## Goal\nUnderstand the parser.');
    expect((await env.loom(['compact', 'ses_unknown'])).stderr).toContain('Unknown session "ses_unknown"');
  });
});
