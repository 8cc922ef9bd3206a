import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchControlUpdate, batchProgressQuery } from '../../workflows/api.js';
import type { BatchRunInput } from '../../workflows/batch.js';
import { numberedTasks, runBatch } from '../../testkit/temporal/batch.js';
import { HISTORIES_DIR, createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { waitFor, waitUntil } from '../../testkit/wait.js';
import { startWorkerProcess, stopProcess } from '../../testkit/loom/worker-process.js';
import { workflowBundlePath } from '../../worker/bundle.js';

let env: LoomTestEnv;
const processes: ChildProcess[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv();
  await env.worker();
});
afterAll(async () => {
  await Promise.all(processes.map((worker) => stopProcess(worker, 'SIGKILL')));
  await env?.close();
});

/** Every run of a batch, first to last, each with the input it started with. */
async function runsOf(batchId: string, { client } = env) {
  const runs: { runId: string; started: number; input: BatchRunInput }[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = '${batchId}'` })) {
    const history = await client.workflow.getHandle(batchId, run.runId).fetchHistory();
    const started = history.events![0].workflowExecutionStartedEventAttributes!;
    runs.push({
      runId: run.runId,
      started: run.startTime.getTime(),
      input: defaultPayloadConverter.fromPayload(started.input!.payloads![0]),
    });
  }
  return runs.sort((a, b) => a.started - b.started);
}

/** Replays every run of the batch with today's code; with `LOOM_RECORD_HISTORIES=1` keeps the first two. */
async function checkRuns(batchId: string, runIds: string[], fixture: string) {
  for (const [i, runId] of runIds.entries()) {
    const history = await env.client.workflow.getHandle(batchId, runId).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: { codePath: await workflowBundlePath() } }, history, batchId);
    if (process.env.LOOM_RECORD_HISTORIES && i < 2) {
      mkdirSync(HISTORIES_DIR, { recursive: true });
      writeFileSync(join(HISTORIES_DIR, `${fixture}-run-${i + 1}.json`), historyToJSON(history));
    }
  }
}

const slow = (i: number) => `Slow ${i}: take your time.`;

describe('a batch that continues as new', () => {
  it('hands its running tasks to the next run, whose window stays full, each task done once', async () => {
    env.model.setScript([{ name: 'task', when: { lastUser: /^Task \d+:/ }, reply: { text: 'done', delayMs: 700 } }]);
    const { batch, handle } = await runBatch(env, numberedTasks(24), { concurrency: 4, continueAtEvents: 40 });
    expect(await handle.result()).toMatchObject({ status: 'completed', done: 24, failed: 0, cancelled: 0 });

    const runs = await runsOf(batch.id);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    // At every continue-as-new with tasks still to start, the next run took over a full window.
    const handedOver = runs.flatMap(({ input }) => input.carried?.running ?? []);
    for (const { input } of runs.slice(1)) {
      if (input.carried!.nextIndex < 24) expect(input.carried!.running).toHaveLength(4);
    }
    const tasks = await env.store.batchTasks(batch.id);
    for (const { index, sessionId } of handedOver) {
      expect(tasks[index].outcome).toMatchObject({ status: 'completed', sessionId, attempts: 1, text: 'done' });
    }
    // Each task once: one session each, one model call each.
    expect(tasks.every((task) => task.outcome.status === 'completed' && task.outcome.attempts === 1)).toBe(true);
    expect(new Set(tasks.map((task) => task.outcome.sessionId)).size).toBe(24);
    const prompts = env.model.requests.filter((r) => r.rule === 'task').map((r) => r.lastUser.split(':')[0]);
    expect(prompts.sort()).toEqual(
      numberedTasks(24)
        .map((task) => task.description)
        .sort(),
    );
    expect(await env.store.getBatch(batch.id)).toMatchObject({ status: 'completed' });
    await checkRuns(
      batch.id,
      runs.map((run) => run.runId),
      'batch-handed-over',
    );
  });

  it.each(['the cancel control', "the batch's own run cancelled"])(
    'cancels the tasks an earlier run started, through %s',
    async (how) => {
      env.model.setScript([
        { name: 'slow', when: { lastUser: /^Slow \d+:/ }, reply: { text: 'late', delayMs: 60_000 } },
      ]);
      const before = env.model.requests.length;
      const { batch, handle } = await runBatch(env, numberedTasks(6, slow), { concurrency: 3, continueAtEvents: 40 });
      await waitFor(() => env.model.requests.length - before >= 3, 30_000);
      // Pausing and resuming grows the run's history until it continues as new, its tasks still running.
      for (let i = 0; (await runsOf(batch.id)).length < 2; i++) {
        if (i > 20) throw new Error(`batch ${batch.id} never continued as new`);
        await handle.executeUpdate(batchControlUpdate, { args: [{ action: i % 2 ? 'resume' : 'pause' }] });
      }
      await handle.executeUpdate(batchControlUpdate, { args: [{ action: 'resume' }] });
      const [first, ...later] = await runsOf(batch.id);
      const carried = later[0].input.carried!.running!;
      expect(carried).toHaveLength(3);
      expect((await handle.query(batchProgressQuery)).running).toBe(3);

      if (how === 'the cancel control') {
        await handle.executeUpdate(batchControlUpdate, { args: [{ action: 'cancel' }] });
        expect(await handle.result()).toMatchObject({ status: 'cancelled', done: 0, cancelled: 6 });
        const tasks = await env.store.batchTasks(batch.id);
        expect(tasks.map((task) => task.outcome.status)).toEqual(Array(6).fill('cancelled'));
      } else {
        await handle.cancel();
        await expect(handle.result()).rejects.toThrow();
      }
      for (const { sessionId } of carried) {
        await waitUntil(
          async () => (await env.client.workflow.getHandle(sessionId).describe()).status.name === 'CANCELLED',
          20_000,
        );
        expect((await env.store.getSession(sessionId))?.status).toBe('cancelled');
      }
      // No task ran again after the cancel.
      expect(env.model.requests.length - before).toBe(3);
      if (how === 'the cancel control') {
        await checkRuns(batch.id, [first.runId, ...later.map((run) => run.runId)], 'batch-hand-over-cancelled');
      }
    },
  );

  it('loses and repeats nothing when its worker is killed after a hand-over', async () => {
    const own = await createLoomTestEnv();
    try {
      const first = await startWorkerProcess(own.env);
      processes.push(first);
      own.model.setScript([{ name: 'task', when: { lastUser: /^Task \d+:/ }, reply: { text: 'done', delayMs: 700 } }]);
      // A model call cut short by the kill is tried again (the other tests try once).
      const modelRetry = { maximumAttempts: 5, initialIntervalMs: 100, maximumIntervalMs: 500 };
      const { batch, handle } = await runBatch(own, numberedTasks(20), {
        concurrency: 4,
        continueAtEvents: 40,
        modelRetry,
      });
      await waitUntil(async () => (await runsOf(batch.id, own)).length >= 2, 60_000);
      await stopProcess(first, 'SIGKILL');
      processes.push(await startWorkerProcess(own.env));
      const result = await handle.result();
      const tasks = await own.store.batchTasks(batch.id);
      expect(result, JSON.stringify(tasks.filter((task) => task.outcome.status !== 'completed'))).toMatchObject({
        status: 'completed',
        done: 20,
        failed: 0,
      });
      expect(tasks.every((task) => task.outcome.status === 'completed' && task.outcome.attempts === 1)).toBe(true);
      expect(new Set(tasks.map((task) => task.outcome.sessionId)).size).toBe(20);
      // A model call cut short by the kill is made again; each session still holds one answer.
      for (const { outcome } of tasks) {
        const messages = await own.store.messages(outcome.sessionId!);
        expect(messages.map((message) => message.info.role)).toEqual(['user', 'assistant']);
      }
    } finally {
      await own.close();
    }
  }, 180_000);
});
