import type { LoomWorker } from '../../worker/create-worker.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, SCRIPTED_MODEL, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson, type spawnLoom } from '../../testkit/loom/run-loom.js';
import { waitFor } from '../../testkit/wait.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv();
});
afterAll(() => env?.close());

/** A session busy with a model call that does not end by itself; returns its id. */
async function busySession(prompt: string): Promise<{ sessionId: string; run: ReturnType<typeof spawnLoom> }> {
  const run = env.spawnLoom(['run', '--json', '-m', SCRIPTED_MODEL, prompt]);
  await env.model.waitForRequest((r) => r.lastUser === prompt, 30_000);
  const [session] = await env.store.listSessions({ limit: 1 });
  return { sessionId: session.id, run };
}

async function userTexts(sessionId: string): Promise<string[]> {
  const messages = await env.store.messages(sessionId);
  return messages
    .filter((m) => m.info.role === 'user')
    .flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' && !p.synthetic ? [p.text] : [])));
}

async function runStatuses(sessionId: string): Promise<string[]> {
  const runs = [];
  for await (const run of env.client.workflow.list({ query: `WorkflowId = '${sessionId}'` })) runs.push(run);
  return runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime()).map((run) => run.status.name);
}

async function waitForPromptSignal(sessionId: string): Promise<void> {
  for (
    const deadline = Date.now() + 30_000;
    Date.now() < deadline;
    await new Promise((resolve) => setTimeout(resolve, 100))
  ) {
    const history = await env.client.workflow.getHandle(sessionId).fetchHistory();
    if ((history.events ?? []).some((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'prompt'))
      return;
  }
  throw new Error(`No prompt reached the run of ${sessionId} within 30 s`);
}

async function stop(worker: LoomWorker): Promise<void> {
  worker.shutdown();
  await waitFor(() => worker.getState() === 'STOPPED', 30_000);
}

describe('loom resume while the session is being cancelled', () => {
  it('starts the next run with a prompt sent after `loom cancel` returned', async () => {
    env.model.setScript([
      { name: 'long', when: { lastUser: 'Start a long job' }, reply: { text: 'Still working…', delayMs: 120_000 } },
      { name: 'next', when: { lastUser: 'Then do this instead' }, reply: { text: 'Doing this instead.' } },
    ]);
    const worker = await env.worker();
    const { sessionId, run } = await busySession('Start a long job');
    // Leave the run to the worker, then stop the worker: the cancel below stays pending until a
    // worker takes the run again, as it does while workers restart or are busy.
    run.child.kill('SIGTERM');
    await run.result;
    await stop(worker);

    const cancelled = await env.loom(['cancel', sessionId]);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stderr).toContain(`Cancellation requested for ${sessionId}`);

    const resumed = await env.loom(['resume', '--json', sessionId, 'Then do this instead']);
    expect(parseJson(resumed)).toMatchObject({ sessionId, status: 'completed', text: 'Doing this instead.' });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`Session ${sessionId} is being cancelled; your prompt will start its next run.`);

    expect(await userTexts(sessionId)).toEqual(['Start a long job', 'Then do this instead']);
    expect(env.model.requests.filter((r) => r.rule === 'next').map((r) => r.lastUser)).toEqual([
      'Then do this instead',
    ]);
    expect(await runStatuses(sessionId)).toEqual(['CANCELLED', 'COMPLETED']);
  }, 120_000);

  it('starts the next run with a prompt queued in a run that is then cancelled before taking it', async () => {
    env.model.setScript([
      {
        name: 'long',
        when: { lastUser: 'Start another long job' },
        reply: { text: 'Still working…', delayMs: 120_000 },
      },
      { name: 'after', when: { lastUser: 'And after that, this' }, reply: { text: 'Did that too.' } },
    ]);
    const worker = await env.worker();
    const { sessionId, run } = await busySession('Start another long job');
    const resumed = env.spawnLoom(['resume', '--json', sessionId, 'And after that, this']);
    // The prompt is queued in the busy run (its signal is in the run's history) before the cancel.
    await waitForPromptSignal(sessionId);
    expect((await env.loom(['cancel', sessionId])).code).toBe(0);
    const first = await run.result;
    expect(parseJson(first)).toMatchObject({ sessionId, status: 'cancelled' });

    const result = await resumed.result;
    expect(parseJson(result)).toMatchObject({ sessionId, status: 'completed', text: 'Did that too.' });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `Session ${sessionId} was cancelled before it took your prompt; your prompt starts its next run.`,
    );
    expect(await userTexts(sessionId)).toEqual(['Start another long job', 'And after that, this']);
    expect(await runStatuses(sessionId)).toEqual(['CANCELLED', 'COMPLETED']);
    await stop(worker);
  }, 120_000);
});
