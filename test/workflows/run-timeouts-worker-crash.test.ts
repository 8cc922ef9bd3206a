import { WorkflowFailedError } from '@temporalio/client';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startWorkerProcess, stopProcess } from '../../testkit/loom/worker-process.js';

let env: LoomTestEnv;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv({
    config: { agent: { asker: { mode: 'primary', permission: { bash: 'ask' } } } },
  });
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => stopProcess(worker, 'SIGKILL')));
  await env?.close();
});

describe('a time limit across a worker crash', () => {
  it('still ends the run on time, on another worker, with nothing done twice', async () => {
    env.model.setScript([
      {
        name: 'ask',
        when: { lastUser: 'Ask, then wait', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'touch asked.ran', description: 'Asks' } }] },
      },
    ]);
    workers.push(await startWorkerProcess(env.env));
    const started = Date.now();
    const { sessionId, result } = await env.start('Ask, then wait', { agent: 'asker', timeoutMs: 6000 });
    // Then the run waits for a person's reply: the limit's timer is all that can end it.
    await env.model.waitForRequest((r) => r.rule === 'ask', 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await stopProcess(workers[0], 'SIGKILL');
    workers.push(await startWorkerProcess(env.env));

    const failure = await result().then(
      () => undefined,
      (error: unknown) => error,
    );
    const elapsed = Date.now() - started;
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toMatchObject({ type: 'RunTimedOut' });
    expect(elapsed).toBeGreaterThanOrEqual(6000);
    // The timer is the server's: the new worker is told when it fires (after at most the sticky queue's timeout).
    expect(elapsed).toBeLessThan(6000 + 20_000);
    expect(env.model.requests.filter((r) => r.rule === 'ask')).toHaveLength(1);
    expect(existsSync(join(env.project, 'asked.ran'))).toBe(false);
    expect(await env.store.getSession(sessionId)).toMatchObject({ status: 'failed' });
    const messages = await env.store.messages(sessionId);
    expect(messages.map((m) => m.info.role)).toEqual(['user', 'assistant']);
    const parts = messages.flatMap((m) => m.parts);
    expect(new Set(parts.map((p) => p.id)).size).toBe(parts.length);
  }, 120_000);
});
