import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';

// A repository whose root and package each have an AGENTS.md, and a loom.json naming more rules:
// what the scripted model receives as its system prompt, for the session and for its subagent.

let env: LoomTestEnv;
let server: Server;
let rulesUrl: string;

beforeAll(async () => {
  server = createServer((_, response) => response.end('URL RULE: keep commits small.\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rulesUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rules.md`;
  env = await createLoomTestEnv({
    files: {
      '.git/HEAD': 'ref: refs/heads/main\n',
      'AGENTS.md': 'ROOT RULE: run the tests with `make check`.\n',
      'pkg/AGENTS.md': 'PACKAGE RULE: never touch vendor/.\n',
      'pkg/index.ts': 'export const x = 1;\n',
      'loom.json': JSON.stringify({ instructions: ['docs/*.md', rulesUrl] }),
      'docs/style.md': 'STYLE RULE: two spaces.\n',
    },
  });
  await env.worker();
});
afterAll(async () => {
  await env?.close();
  server?.close();
});

describe('rules files in the system prompt', () => {
  it('gives the model every AGENTS.md from the root to the session’s folder, then `instructions` (a glob, a URL), and the same to its subagent', async () => {
    env.model.setScript([
      {
        name: 'delegate',
        when: { lastUser: 'Tidy the package', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Look', prompt: 'Look at the package', subagent_type: 'general' } },
          ],
        },
      },
      { name: 'child', when: { lastUser: 'Look at the package' }, reply: { text: 'Looked.' } },
      { name: 'done', when: { lastUser: 'Tidy the package', lastRole: 'tool' }, reply: { text: 'Tidied.' } },
    ]);
    const { result } = await env.start('Tidy the package', { directory: join(env.project, 'pkg') });
    expect(await result()).toMatchObject({ status: 'completed', text: 'Tidied.' });
    const first = env.model.requests.find((request) => request.rule === 'delegate')!;
    const blocks = [
      `Instructions from: ${join(env.project, 'AGENTS.md')}\nROOT RULE`,
      `Instructions from: ${join(env.project, 'pkg', 'AGENTS.md')}\nPACKAGE RULE`,
      `Instructions from: ${join(env.project, 'docs', 'style.md')}\nSTYLE RULE`,
      `Instructions from: ${rulesUrl}\nURL RULE`,
    ];
    const at = blocks.map((block) => first.system.indexOf(block));
    expect(at.every((index) => index > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    const child = env.model.requests.find((request) => request.rule === 'child')!;
    for (const block of blocks) expect(child.system).toContain(block);
  });

  it('runs /init, the built-in command, as a prompt asking the agent for AGENTS.md', async () => {
    env.model.setScript([{ name: 'init', when: { lastRole: 'user' }, reply: { text: 'Wrote AGENTS.md.' } }]);
    const { result } = await env.start('/init keep it short');
    expect(await result()).toMatchObject({ status: 'completed', text: 'Wrote AGENTS.md.' });
    const request = env.model.requests.find((candidate) => candidate.rule === 'init')!;
    expect(request.lastUser).toContain('Write an AGENTS.md at the root of this project');
    expect(request.lastUser).toContain('keep it short');
  });
});
