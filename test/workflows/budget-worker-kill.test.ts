import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totalTokens } from '../../core/records/tokens.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startWorkerProcess, stopProcess } from '../../testkit/loom/worker-process.js';

let env: LoomTestEnv;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv();
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => stopProcess(worker, 'SIGKILL')));
  await env?.close();
});

describe('a budget across a worker killed mid-run', () => {
  it('neither forgets the budget nor counts a step twice when the worker is killed mid-way', async () => {
    env.model.setScript([
      {
        name: 'slow-loop',
        // 1,000 tokens a call, slowly, and another command each time (the same one thrice would ask about a doom loop).
        reply: (request) => ({
          usage: { prompt_tokens: 900, completion_tokens: 100 },
          text: 'Working on it, step by step.',
          chunkSize: 8,
          chunkDelayMs: 100,
          toolCalls: [{ name: 'bash', args: { command: `echo step ${request.index}`, description: 'Again' } }],
        }),
      },
    ]);
    workers.push(await startWorkerProcess(env.env));
    const { sessionId, result } = await env.start('Loop slowly.', { budget: { tokens: 8_000 } });
    await env.model.waitForRequest((r) => r.index >= 3, 60_000);
    await stopProcess(workers[0], 'SIGKILL');
    workers.push(await startWorkerProcess(env.env));
    expect(((await result().catch((error: { cause?: Error }) => error.cause)) as Error).message).toMatch(
      /token budget of session .* is reached \(8,000 tokens spent of 8,000\)/,
    );
    // The call cut short by the kill was made again; only the finished steps count, each once.
    const steps = (await env.store.messages(sessionId)).filter((m) => m.info.role === 'assistant');
    expect(steps).toHaveLength(8);
    expect(totalTokens((await env.store.subtreeUsage(sessionId)).tokens)).toBe(8_000);
  }, 120_000);
});
