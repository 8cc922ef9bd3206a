import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchProgressQuery } from '../../workflows/api.js';
import { numberedTasks, runBatch } from '../support/batch.js';
import { createLoomTestEnv, type LoomTestEnv } from '../support/loom-env.js';
import { startWorkerProcess, stopProcess } from '../support/worker-process.js';

let env: LoomTestEnv;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv();
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => stopProcess(worker, 'SIGKILL')));
  await env?.close();
});

const TASKS = 1000;

describe('a 1,000-task batch', () => {
  it('completes at concurrency 20 through a worker killed half way, each task once, histories under the thresholds', async () => {
    env.model.setScript([{ name: 'task', reply: (r) => ({ text: `done: ${r.lastUser.split(':')[0]}` }) }]);
    workers.push(await startWorkerProcess(env.env));
    const started = Date.now();
    // Model calls under way on the killed worker time out and run again on the new one: an
    // activity retry, not a second attempt of the task.
    const { batch, handle } = await runBatch(env, numberedTasks(TASKS), {
      concurrency: 20,
      modelRetry: { maximumAttempts: 3, initialIntervalMs: 100, maximumIntervalMs: 500 },
    });

    let progress = await handle.query(batchProgressQuery);
    while (progress.done < TASKS / 2) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      progress = await handle.query(batchProgressQuery);
    }
    await stopProcess(workers[0], 'SIGKILL');
    const killedAt = progress.done;
    workers.push(await startWorkerProcess(env.env));

    const result = await handle.result();
    const seconds = (Date.now() - started) / 1000;
    const unfinished = (await env.store.batchTasks(batch.id)).filter((t) => t.outcome.status !== 'completed');
    const why = `tasks not completed: ${JSON.stringify(unfinished.map((t) => t.outcome))}; children that failed: ${JSON.stringify(await childFailures(batch.id))}`;
    expect(result, why).toMatchObject({ status: 'completed', total: TASKS, done: TASKS, failed: 0, cancelled: 0 });
    expect(killedAt).toBeGreaterThanOrEqual(TASKS / 2);
    expect(killedAt).toBeLessThan(TASKS);

    const tasks = await env.store.batchTasks(batch.id);
    expect(tasks.filter((t) => t.outcome.status === 'completed')).toHaveLength(TASKS);
    expect(tasks.every((t) => t.outcome.attempts === 1)).toBe(true);
    expect(new Set(tasks.map((t) => t.outcome.sessionId)).size).toBe(TASKS);
    const answered = new Set(env.model.requests.map((r) => r.lastUser));
    expect(answered.size).toBe(TASKS);

    for await (const run of env.client.workflow.list({ query: `WorkflowId = '${batch.id}'` })) {
      const history = await env.client.workflow.getHandle(batch.id, run.runId).fetchHistory();
      expect(history.events!.length).toBeLessThan(4096);
    }
    console.log(`1,000-task batch: ${seconds.toFixed(1)} s (${(TASKS / seconds).toFixed(1)} tasks/s), worker killed at ${killedAt}`);
  }, 600_000);
});

/** Why children of the batch's runs failed to start or failed, from its histories. */
async function childFailures(batchId: string): Promise<string[]> {
  const reasons: string[] = [];
  for await (const run of env.client.workflow.list({ query: `WorkflowId = '${batchId}'` })) {
    const history = await env.client.workflow.getHandle(batchId, run.runId).fetchHistory();
    for (const event of history.events ?? []) {
      const failed = event.childWorkflowExecutionFailedEventAttributes;
      if (failed) reasons.push(`${failed.workflowExecution?.workflowId}: ${failed.failure?.message} / ${failed.failure?.cause?.message ?? ''}`);
      const notStarted = event.startChildWorkflowExecutionFailedEventAttributes;
      if (notStarted) reasons.push(`${notStarted.workflowId}: could not start (cause ${notStarted.cause})`);
      const other = event.childWorkflowExecutionTimedOutEventAttributes ?? event.childWorkflowExecutionTerminatedEventAttributes ?? event.childWorkflowExecutionCanceledEventAttributes;
      if (other) reasons.push(`${other.workflowExecution?.workflowId}: timed out, terminated or cancelled`);
    }
  }
  return reasons;
}
