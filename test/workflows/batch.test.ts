import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TASK_PRIORITY } from '../../core/runs/task-priority.js';
import { batchControlUpdate, batchProgressQuery } from '../../workflows/api.js';
import { numberedTasks, runBatch } from '../../testkit/temporal/batch.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startTemporalServer } from '../../testkit/temporal/temporal-server.js';
import { waitFor } from '../../testkit/wait.js';

let env: LoomTestEnv;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv({ config: { permission: { batch: 'allow' } } });
  cleanups.push(() => env.close());
  await env.worker();
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('batchWorkflow', () => {
  it('runs every task as its own session, retries a failing one, and finishes with a summary', async () => {
    env.model.setScript([
      { name: 'fails', when: { lastUser: /^Task 7:/ }, reply: { status: 401, errorMessage: 'no access for task 7' } },
      {
        name: 'task',
        when: { lastUser: /^Task \d+:/ },
        reply: (r) => ({ text: `Answer to ${r.lastUser.split(':')[0]}` }),
      },
    ]);
    const { batch, handle } = await runBatch(env, numberedTasks(40), { concurrency: 5, retries: 1 });
    const result = await handle.result();
    expect(result).toMatchObject({
      status: 'completed',
      total: 40,
      done: 39,
      failed: 1,
      cancelled: 0,
      running: 0,
      pending: 0,
    });
    expect(result.tokens.input).toBeGreaterThan(0);

    const tasks = await env.store.batchTasks(batch.id);
    expect(tasks).toHaveLength(40);
    expect(tasks[3].outcome).toMatchObject({ status: 'completed', attempts: 1, text: 'Answer to Task 3' });
    expect(tasks[7].outcome).toMatchObject({ status: 'failed', attempts: 2 });
    expect(tasks[7].outcome.error).toContain('no access for task 7');
    expect(env.model.requests.filter((r) => r.rule === 'fails')).toHaveLength(2);

    const sessions = new Set(tasks.filter((t) => t.outcome.status === 'completed').map((t) => t.outcome.sessionId));
    expect(sessions.size).toBe(39);
    const session = await env.store.getSession(tasks[3].outcome.sessionId!);
    expect(session).toMatchObject({ title: 'Task 3', status: 'idle', agent: 'build' });
    expect(await env.store.getBatch(batch.id)).toMatchObject({ status: 'completed' });
    await env.checkReplay(batch.id, 'batch-with-retry');
  });

  it('pauses, changes concurrency, resumes and cancels while running, keeping finished results', async () => {
    env.model.setScript([
      { name: 'slow', when: { lastUser: /^Slow \d+/ }, reply: { text: 'done slowly', delayMs: 400 } },
    ]);
    const { batch, handle } = await runBatch(
      env,
      numberedTasks(30, (i) => `Slow ${i}`),
      { concurrency: 2 },
    );
    await waitFor(() => env.model.requests.filter((r) => r.rule === 'slow').length >= 2, 20_000);

    let progress = await handle.executeUpdate(batchControlUpdate, { args: [{ action: 'pause' }] });
    expect(progress.status).toBe('paused');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const paused = await handle.query(batchProgressQuery);
    expect(paused.running).toBe(0);
    const requestsWhilePaused = env.model.requests.filter((r) => r.rule === 'slow').length;
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(env.model.requests.filter((r) => r.rule === 'slow').length).toBe(requestsWhilePaused);
    expect(await env.store.getBatch(batch.id)).toMatchObject({ status: 'paused' });

    progress = await handle.executeUpdate(batchControlUpdate, { args: [{ action: 'concurrency', value: 6 }] });
    expect(progress.concurrency).toBe(6);
    await handle.executeUpdate(batchControlUpdate, { args: [{ action: 'resume' }] });
    let most = 0;
    for (let i = 0; i < 20; i++) {
      most = Math.max(most, (await handle.query(batchProgressQuery)).running);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(most).toBeGreaterThan(2);
    expect(most).toBeLessThanOrEqual(6);

    await expect(
      handle.executeUpdate(batchControlUpdate, { args: [{ action: 'concurrency', value: 0 }] }),
    ).rejects.toThrow();
    await handle.executeUpdate(batchControlUpdate, { args: [{ action: 'cancel' }] });
    const result = await handle.result();
    expect(result.status).toBe('cancelled');
    expect(result.done + result.cancelled + result.failed).toBe(30);
    expect(result.done).toBeGreaterThan(0);
    expect(result.cancelled).toBeGreaterThan(0);
    const tasks = await env.store.batchTasks(batch.id);
    expect(tasks.filter((t) => t.outcome.status === 'completed')).toHaveLength(result.done);
    expect(tasks.filter((t) => t.outcome.status === 'cancelled')).toHaveLength(result.cancelled);
    expect(tasks.every((t) => t.outcome.status !== 'running' && t.outcome.status !== 'pending')).toBe(true);
    await env.checkReplay(batch.id, 'batch-paused-and-cancelled');
  });

  it("runs each task's session in the folder it names, inside the batch's directory", async () => {
    mkdirSync(join(env.project, 'a'), { recursive: true });
    mkdirSync(join(env.project, 'packages', 'b'), { recursive: true });
    env.model.setScript([
      {
        name: 'dir-write',
        when: { lastUser: /^Note where you are: \w+$/, lastRole: 'user' },
        reply: (r) => ({
          toolCalls: [{ name: 'write', args: { filePath: 'where.txt', content: r.lastUser.split(': ')[1] } }],
        }),
      },
      { name: 'dir-done', when: { lastUser: /^Note where you are/, lastRole: 'tool' }, reply: { text: 'noted' } },
    ]);
    const tasks = [
      { description: 'In a', prompt: 'Note where you are: a', directory: 'a' },
      { description: 'In b', prompt: 'Note where you are: b', directory: 'packages/b/' },
      { description: 'At the top', prompt: 'Note where you are: top' },
    ];
    const { batch, handle } = await runBatch(env, tasks);
    expect(await handle.result()).toMatchObject({ status: 'completed', done: 3, failed: 0 });

    expect(readFileSync(join(env.project, 'a', 'where.txt'), 'utf8')).toBe('a');
    expect(readFileSync(join(env.project, 'packages', 'b', 'where.txt'), 'utf8')).toBe('b');
    expect(readFileSync(join(env.project, 'where.txt'), 'utf8')).toBe('top');
    const stored = await env.store.batchTasks(batch.id);
    expect(stored.map(({ task }) => task.directory)).toEqual(['a', 'packages/b/', undefined]);
    const directories = await Promise.all(
      stored.map(async ({ outcome }) => (await env.store.getSession(outcome.sessionId!))?.directory),
    );
    expect(directories).toEqual([join(env.project, 'a'), join(env.project, 'packages', 'b'), env.project]);
    await env.checkReplay(batch.id);
  });

  it('continues as new without losing or repeating a task', async () => {
    const server = await startTemporalServer({
      binary: inject('temporalBinary'),
      dynamicConfig: ['limit.historyCount.suggestContinueAsNew=150'],
    });
    cleanups.push(() => server.teardown());
    const small = await createLoomTestEnv({ address: server.address });
    cleanups.push(() => small.close());
    await small.worker();
    small.model.setScript([{ name: 'any', reply: { text: 'ok' } }]);
    const { batch, handle } = await runBatch(small, numberedTasks(120), { concurrency: 8 });
    expect(await handle.result()).toMatchObject({ status: 'completed', done: 120 });
    const runs = [];
    for await (const run of small.client.workflow.list({ query: `WorkflowId = '${batch.id}'` })) runs.push(run);
    expect(runs.length).toBeGreaterThan(1);
    for (const run of runs) {
      const history = await small.client.workflow.getHandle(batch.id, run.runId).fetchHistory();
      expect(history.events!.length).toBeLessThan(400);
    }
    const tasks = await small.store.batchTasks(batch.id);
    expect(tasks.filter((t) => t.outcome.status === 'completed')).toHaveLength(120);
    expect(small.model.requests).toHaveLength(120);
    // The run continued as new keeps the batch's place in the task queue, and so do its tasks.
    const place = { priorityKey: TASK_PRIORITY.batchControl, fairnessKey: batch.id };
    expect((await small.client.workflow.getHandle(batch.id).describe()).priority).toMatchObject(place);
    const last = small.client.workflow.getHandle(tasks[119].outcome.sessionId!);
    expect((await last.describe()).priority).toMatchObject({ ...place, priorityKey: TASK_PRIORITY.batchTask });
  });
});

describe('the batch tool', () => {
  it('lets a primary agent run a batch and read every outcome', async () => {
    env.model.setScript([
      {
        name: 'bt-call',
        when: { lastUser: 'Review three files', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'batch',
              args: {
                tasks: ['a', 'b', 'c'].map((f) => ({ description: `Review ${f}`, prompt: `Review file ${f}.` })),
                concurrency: 2,
              },
            },
          ],
        },
      },
      {
        name: 'bt-task',
        when: { lastUser: /^Review file \w\.$/ },
        reply: (r) => ({ text: `${r.lastUser} Looks fine.` }),
      },
      { name: 'bt-done', when: { lastUser: 'Review three files', lastRole: 'tool' }, reply: { text: 'All reviewed.' } },
    ]);
    const { sessionId, result } = await env.start('Review three files');
    expect((await result()).text).toBe('All reviewed.');
    const output = String(env.model.requests.findLast((r) => r.rule === 'bt-done')!.messages.at(-1).content);
    expect(output).toMatch(/^Batch bat_\w+ completed: 3 done, 0 failed, 0 cancelled of 3\./);
    expect(output).toContain('1. [completed] Review a (session ses_');
    expect(output).toContain('Review file c. Looks fine.');
    const [batch] = await env.store.listBatches(1);
    expect(batch).toMatchObject({ parentSessionID: sessionId, agent: 'general', total: 3, status: 'completed' });
  });

  it('returns at once in the background, and the batch finishes on its own', async () => {
    env.model.setScript([
      {
        name: 'bg-call',
        when: { lastUser: 'Start a background batch', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'batch',
              args: { tasks: [{ description: 'Slow one', prompt: 'Slow background task.' }], background: true },
            },
          ],
        },
      },
      {
        name: 'bg-task',
        when: { lastUser: 'Slow background task.' },
        reply: { text: 'finished later', delayMs: 1500 },
      },
      {
        name: 'bg-done',
        when: { lastUser: 'Start a background batch', lastRole: 'tool' },
        reply: { text: 'Started it.' },
      },
    ]);
    const { result } = await env.start('Start a background batch');
    expect((await result()).text).toBe('Started it.');
    const output = String(env.model.requests.findLast((r) => r.rule === 'bg-done')!.messages.at(-1).content);
    const batchId = /Batch (bat_\w+) started in the background/.exec(output)![1];
    expect(await env.client.workflow.getHandle(batchId).result()).toMatchObject({ status: 'completed', done: 1 });
  });

  it('is not offered unless the configuration allows it', async () => {
    const plain = await createLoomTestEnv();
    cleanups.push(() => plain.close());
    await plain.worker();
    plain.model.setScript([{ name: 'x', reply: { text: 'hi' } }]);
    await (await plain.start('Hello')).result();
    expect(plain.model.requests[0].toolNames).not.toContain('batch');
  });
});
