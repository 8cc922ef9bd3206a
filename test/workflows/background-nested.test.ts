import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { waitUntil } from '../../testkit/wait.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    config: {
      subagent_depth: 2,
      // A subagent that may delegate further: its rules name `task`.
      agent: { lead: { mode: 'subagent', description: 'Leads research', permission: { task: 'allow' } } },
    },
  });
  await env.worker();
});
afterAll(() => env?.close());

const texts = async (sessionId: string) =>
  (await env.store.messages(sessionId)).flatMap((m) => m.parts).flatMap((p) => (p.type === 'text' ? [p.text] : []));

describe('nested background subagents', () => {
  it('a background subagent woken by its own background subagent reports its new answer to its parent', async () => {
    env.model.setScript([
      {
        name: 'root-start',
        when: { lastUser: 'Lead the research', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: { description: 'Lead', prompt: 'Delegate the digging.', subagent_type: 'lead', background: true },
            },
          ],
        },
      },
      {
        name: 'root-waits',
        when: { lastUser: 'Lead the research', lastRole: 'tool' },
        reply: { text: 'The lead is on it.' },
      },
      {
        name: 'lead-start',
        when: { lastUser: 'Delegate the digging.', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: { description: 'Dig', prompt: 'Dig slowly.', subagent_type: 'general', background: true },
            },
          ],
        },
      },
      {
        name: 'lead-waits',
        when: { lastUser: 'Delegate the digging.', lastRole: 'tool' },
        reply: { text: 'Digging has started.' },
      },
      { name: 'digger', when: { lastUser: 'Dig slowly.' }, reply: { text: 'Found the treasure.', delayMs: 1_500 } },
      {
        name: 'lead-woken',
        when: { lastUser: 'The background subagent "Dig' },
        reply: { text: 'The digger found the treasure.' },
      },
      {
        name: 'root-first',
        when: { lastUser: /^The background subagent "Lead[^]*Digging has started\./ },
        reply: { text: 'Noted: digging started.' },
      },
      {
        name: 'root-second',
        when: { lastUser: /^The background subagent "Lead[^]*The digger found the treasure\./ },
        reply: { text: 'We have the treasure.' },
      },
    ]);
    const { sessionId, result } = await env.start('Lead the research');
    expect((await result()).text).toBe('The lead is on it.');

    await waitUntil(async () => (await texts(sessionId)).includes('We have the treasure.'), 60_000);
    expect(await texts(sessionId)).toContain('Noted: digging started.');
    expect(env.model.requests.filter((request) => request.rule === 'lead-woken')).toHaveLength(1);
    expect(env.model.requests.filter((request) => request.rule === 'root-second')).toHaveLength(1);
  }, 90_000);
});
