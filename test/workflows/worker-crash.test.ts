import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startWorkerProcess, stopProcess } from '../../testkit/loom/worker-process.js';

let env: LoomTestEnv;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'README.md': '# Crash test\n' } });
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => stopProcess(worker, 'SIGKILL')));
  await env?.close();
});

const slowAnswer = Array.from({ length: 40 }, (_, i) => `sentence ${i}.`).join(' ');

describe('a worker killed mid-session', () => {
  it('is replaced by a new worker and the session completes with no part lost or duplicated', async () => {
    env.model.setScript([
      {
        name: 'look',
        when: { lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'README.md' } }] },
      },
      { name: 'slow', when: { lastRole: 'tool' }, reply: { text: slowAnswer, chunkSize: 12, chunkDelayMs: 150 } },
    ]);
    workers.push(await startWorkerProcess(env.env));
    const { sessionId, result } = await env.start('Read the readme, then write slowly');

    await env.model.waitForRequest((r) => r.rule === 'slow', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const partial = (await env.store.messages(sessionId)).at(-1)!.parts.find((p) => p.type === 'text');
    expect(partial?.type === 'text' && partial.text.length).toBeGreaterThan(0);
    await stopProcess(workers[0], 'SIGKILL');

    workers.push(await startWorkerProcess(env.env));
    const outcome = await result();
    expect(outcome).toMatchObject({ status: 'completed', text: slowAnswer, steps: 2 });
    expect(env.model.requests.filter((r) => r.rule === 'slow')).toHaveLength(2);

    const messages = await env.store.messages(sessionId);
    expect(messages.map((m) => m.info.role)).toEqual(['user', 'assistant', 'assistant']);
    const parts = messages.flatMap((m) => m.parts);
    expect(new Set(parts.map((p) => p.id)).size).toBe(parts.length);
    expect(messages[1].parts.map((p) => (p.type === 'tool' ? `${p.tool}:${p.state.status}` : p.type))).toEqual([
      'read:completed',
    ]);
    expect(messages[2].parts.map((p) => (p.type === 'text' ? p.text : p.type))).toEqual([slowAnswer]);
    await env.checkReplay(sessionId, 'worker-killed');
  }, 120_000);
});
