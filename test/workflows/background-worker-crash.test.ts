import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startWorkerProcess, stopProcess, type WorkerProcess } from '../../testkit/loom/worker-process.js';
import { waitUntil } from '../../testkit/wait.js';

let env: LoomTestEnv;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'README.md': '# Demo\n' } });
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => stopProcess(worker, 'SIGKILL')));
  await env?.close();
});

const slowAnswer = Array.from({ length: 30 }, (_, i) => `finding ${i}.`).join(' ');

describe('a background subagent whose worker is killed', () => {
  it('finishes on another worker, and its answer wakes the parent exactly once', async () => {
    env.model.setScript([
      {
        name: 'start',
        when: { lastUser: 'Research in the background', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: {
                description: 'Slow research',
                prompt: 'Research slowly.',
                subagent_type: 'general',
                background: true,
              },
            },
          ],
        },
      },
      {
        name: 'child',
        when: { lastUser: 'Research slowly.' },
        reply: { text: slowAnswer, chunkSize: 10, chunkDelayMs: 100 },
      },
      {
        name: 'parent-done',
        when: { lastUser: 'Research in the background', lastRole: 'tool' },
        reply: { text: 'Started it.' },
      },
      {
        name: 'woken',
        when: { lastUser: 'The background subagent "Slow research' },
        reply: { text: 'Got the research.' },
      },
    ]);
    workers.push(await startWorkerProcess(env.env));
    const { sessionId, result } = await env.start('Research in the background');
    expect((await result()).text).toBe('Started it.');

    // Killed while the child streams its answer, after the parent's run has ended.
    await env.model.waitForRequest((request) => request.rule === 'child', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 800));
    await stopProcess(workers[0], 'SIGKILL');
    workers.push(await startWorkerProcess(env.env));

    const texts = async () =>
      (await env.store.messages(sessionId)).flatMap((m) => m.parts).flatMap((p) => (p.type === 'text' ? [p.text] : []));
    await waitUntil(async () => (await texts()).includes('Got the research.'), 90_000);
    await waitUntil(async () => (await env.store.getSession(sessionId))?.status === 'idle', 30_000);
    expect(env.model.requests.filter((request) => request.rule === 'child').length).toBeGreaterThanOrEqual(2);
    const woken = env.model.requests.filter((request) => request.rule === 'woken');
    expect(woken).toHaveLength(1);
    expect(woken[0].lastUser).toContain(slowAnswer);
    const delivered = (await env.store.messages(sessionId)).filter(
      (m) => m.info.role === 'user' && m.parts.some((p) => p.type === 'text' && p.synthetic),
    );
    expect(delivered).toHaveLength(1);
  }, 180_000);
});
