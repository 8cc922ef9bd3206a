import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startTemporalServer } from '../../testkit/temporal/temporal-server.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('a time limit across continue-as-new', () => {
  it('is one deadline for the whole run: the runs it continues as do not get a fresh limit', async () => {
    const server = await startTemporalServer({
      binary: inject('temporalBinary'),
      dynamicConfig: ['limit.historyCount.suggestContinueAsNew=25'],
    });
    cleanups.push(() => server.teardown());
    const env: LoomTestEnv = await createLoomTestEnv({ files: { 'notes.txt': 'notes\n' }, address: server.address });
    cleanups.push(() => env.close());
    await env.worker();
    // A step every 300 ms, for far longer than the limit; each run continues as new after a few steps.
    env.model.setScript([
      {
        reply: (request) => {
          const seen = request.messages.filter((m) => m.role === 'tool').length;
          return seen < 200
            ? { toolCalls: [{ name: 'read', args: { filePath: 'notes.txt', offset: seen + 1 } }], delayMs: 300 }
            : { text: 'Read it all.' };
        },
      },
    ]);
    const started = Date.now();
    const { sessionId, result } = await env.start('Read the notes again and again', { timeoutMs: 5000 });
    const failure = await result().then(
      () => undefined,
      (error: unknown) => error,
    );
    const elapsed = Date.now() - started;
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toMatchObject({ type: 'RunTimedOut' });
    expect(elapsed).toBeGreaterThanOrEqual(5000);
    expect(elapsed).toBeLessThan(5000 + 5000);

    const runs = [];
    for await (const run of env.client.workflow.list({ query: `WorkflowId = '${sessionId}'` })) runs.push(run);
    expect(runs.length).toBeGreaterThan(2);
    expect(await env.store.getSession(sessionId)).toMatchObject({ status: 'failed' });
    await env.checkReplay(sessionId, 'timed-out-after-continue-as-new');
  }, 60_000);
});
