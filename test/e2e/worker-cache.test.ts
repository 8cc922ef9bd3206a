import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { runLoom } from '../../testkit/loom/run-loom.js';
import { startWorkerProcess, stopProcess } from '../../testkit/loom/worker-process.js';

let env: LoomTestEnv;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'README.md': '# Cache\n' } });
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => stopProcess(worker, 'SIGKILL')));
  await env?.close();
});

describe('loom worker --max-cached-workflows', () => {
  it('with no cache at all, replays each run from its history at every task and still finishes it', async () => {
    env.model.setScript([
      {
        name: 'look',
        when: { lastUser: 'Read it twice', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'README.md' } }] },
      },
      {
        name: 'again',
        when: { lastUser: 'Read it twice', test: (r) => r.messages.filter((m) => m.role === 'tool').length === 1 },
        reply: { toolCalls: [{ name: 'list', args: {} }] },
      },
      {
        name: 'done',
        when: { lastUser: 'Read it twice', test: (r) => r.messages.filter((m) => m.role === 'tool').length === 2 },
        reply: { text: 'Read and listed.' },
      },
    ]);
    workers.push(await startWorkerProcess(env.env, { args: ['--max-cached-workflows', '0'] }));
    const { result } = await env.start('Read it twice');
    expect(await result()).toMatchObject({ status: 'completed', text: 'Read and listed.', steps: 3 });
  }, 120_000);

  it('refuses a count that is not a whole number, naming the flag or the variable', async () => {
    const flag = await runLoom(['worker', '--max-cached-workflows', 'lots'], { env: env.env });
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain('--max-cached-workflows must be a whole number of runs, 0 or more (it is "lots")');
    const variable = await runLoom(['worker'], { env: { ...env.env, LOOM_MAX_CACHED_WORKFLOWS: '-3' } });
    expect(variable.code).toBe(1);
    expect(variable.stderr).toContain(
      'LOOM_MAX_CACHED_WORKFLOWS must be a whole number of runs, 0 or more (it is "-3")',
    );
    const slots = await runLoom(['worker'], { env: { ...env.env, LOOM_MAX_CONCURRENT_ACTIVITIES: '0' } });
    expect(slots.code).toBe(1);
    expect(slots.stderr).toContain(
      'LOOM_MAX_CONCURRENT_ACTIVITIES must be a whole number of activities, 1 or more (it is "0")',
    );
  });
});
