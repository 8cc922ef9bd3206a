import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { openLoomTui } from '../../testkit/loom/tui.js';
import { startTcpProxy, type TcpProxy } from '../../testkit/network/tcp-proxy.js';
import type { TerminalSession } from '../../testkit/terminal/terminal-session.js';

// The terminal UI reaches Temporal through a proxy the test cuts; the worker, in this process,
// talks to the server directly and keeps the run going, as a worker on another machine would.
let env: LoomTestEnv;
let proxy: TcpProxy;
let terminal: TerminalSession | undefined;

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'README.md': '# Outage\n' } });
  await env.worker();
  proxy = await startTcpProxy(env.env.TEMPORAL_ADDRESS!);
}, 60_000);
afterEach(async () => {
  await terminal?.close();
});
afterAll(async () => {
  await proxy?.close();
  await env?.close();
});

describe('the terminal UI while the Temporal server is unreachable', () => {
  it('goes on showing the run from the store, and takes the next prompt once the server is back', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    env.model.setScript([
      {
        name: 'held',
        when: { lastUser: 'Work through the outage' },
        reply: async () => {
          await released;
          return { text: 'Finished while the server was away.' };
        },
      },
      { name: 'after', when: { lastUser: 'And after it' }, reply: { text: 'Back in business.' } },
    ]);
    terminal = await openLoomTui(env, ['tui'], { env: { TEMPORAL_ADDRESS: proxy.address } });
    await terminal.waitFor('worker: elsewhere', { timeoutMs: 30_000 });
    await terminal.type('Work through the outage');
    await terminal.press('Enter');
    await env.model.waitForRequest((request) => request.lastUser === 'Work through the outage', 30_000);

    await proxy.cut();
    release();
    await terminal.waitFor('Finished while the server was away.', { timeoutMs: 30_000 });
    await proxy.restore();

    await terminal.type('And after it');
    await terminal.press('Enter');
    const screen = await terminal.waitFor('Back in business.', { timeoutMs: 60_000 });
    expect(screen).toContain('Finished while the server was away.');
  }, 150_000);
});
