import { WorkflowNotFoundError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localHostId } from '../../activities/hosts/host-id.js';
import { startSession } from '../../client/services/sessions.js';
import { TASK_PRIORITY } from '../../core/runs/task-priority.js';
import { numberedTasks, runBatch } from '../../testkit/temporal/batch.js';
import { createLoomTestEnv, SCRIPTED_MODEL, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import type { ScriptRule } from '../../testkit/model/scripted-model-script.js';
import { waitUntil } from '../../testkit/wait.js';

// One worker that runs one activity (one model call) at a time: every other model call waits in
// the task queue, where Temporal's priority and fairness decide which goes next.
let env: LoomTestEnv;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv();
  await env.worker({ maxConcurrentActivityTaskExecutions: 1 });
});
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  await env?.close();
});

/** The first model call holds the worker's only activity slot until `release()`, so the rest queue up. */
function holdFirstCall(rules: ScriptRule[]): { release: () => void } {
  env.model.requests.length = 0;
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  env.model.setScript([
    {
      name: 'held',
      times: 1,
      reply: async (r) => {
        await released;
        return { text: `done: ${r.lastUser}` };
      },
    },
    ...rules,
  ]);
  return { release };
}

/** How many of these runs have a model call scheduled and waiting for a worker. */
async function waitingModelCalls(sessionIds: string[]): Promise<number> {
  const waiting = await Promise.all(
    sessionIds.map(async (id) => {
      // A task is claimed (given its session id) a moment before its run starts.
      const description = await env.client.workflow
        .getHandle(id)
        .describe()
        .catch((error: unknown) => {
          if (error instanceof WorkflowNotFoundError) return undefined;
          throw error;
        });
      return (description?.raw.pendingActivities ?? []).some(
        (activity) =>
          activity.activityType?.name === 'callModel' &&
          activity.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED,
      );
    }),
  );
  return waiting.filter(Boolean).length;
}

/** A run started as `loom run` starts one. */
function askAsAPerson(env: LoomTestEnv, prompt: string) {
  return startSession(env.client, env.store, {
    prompt,
    maxPromptBytes: 100_000,
    agent: 'build',
    model: SCRIPTED_MODEL,
    directory: env.project,
    host: localHostId(env.env),
    taskQueue: env.taskQueue,
    modelRetry: { maximumAttempts: 1, initialIntervalMs: 100, maximumIntervalMs: 100 },
  });
}

async function taskSessions(batchId: string): Promise<string[]> {
  const tasks = await env.store.batchTasks(batchId);
  return tasks.flatMap(({ outcome }) => (outcome.sessionId ? [outcome.sessionId] : []));
}

describe('task queue priority', () => {
  it("serves a person's run before the batch tasks that were queued ahead of it", async () => {
    const held = holdFirstCall([
      { name: 'person', when: { lastUser: 'A question from a person' }, reply: { text: 'An answer' } },
      { name: 'task', when: { lastUser: /^Task \d+:/ }, reply: { text: 'done' } },
    ]);
    const { batch, handle: batchHandle } = await runBatch(env, numberedTasks(4), { concurrency: 4 });
    let tasks: string[] = [];
    await waitUntil(async () => {
      tasks = await taskSessions(batch.id);
      return env.model.requests.length === 1 && tasks.length === 4 && (await waitingModelCalls(tasks)) === 3;
    }, 30_000);

    const { sessionId, handle } = await askAsAPerson(env, 'A question from a person');
    await waitUntil(async () => (await waitingModelCalls([sessionId])) === 1, 30_000);
    held.release();
    await handle.result();
    expect(await batchHandle.result()).toMatchObject({ status: 'completed', done: 4 });

    // The batch's first call had the slot; the person's went next, ahead of the three queued before it.
    expect(env.model.requests.map((r) => r.rule)).toEqual(['held', 'person', 'task', 'task', 'task']);
    expect((await handle.describe()).priority).toMatchObject({ priorityKey: TASK_PRIORITY.interactive });
    expect((await batchHandle.describe()).priority).toMatchObject({
      priorityKey: TASK_PRIORITY.batchControl,
      fairnessKey: batch.id,
    });
    expect((await env.client.workflow.getHandle(tasks[0]).describe()).priority).toMatchObject({
      priorityKey: TASK_PRIORITY.batchTask,
      fairnessKey: batch.id,
    });
  });
});

describe('subagents', () => {
  it("run at their parent's priority, and a background one below it", async () => {
    // A background subagent's report holds an activity slot until its parent takes it, which takes a model call.
    const free = await createLoomTestEnv();
    await free.worker();
    cleanups.push(() => free.close());
    const task = (description: string, background: boolean) => ({
      name: 'task',
      args: { description, prompt: `${description}.`, subagent_type: 'general', background },
    });
    free.model.setScript([
      {
        name: 'delegate',
        when: { lastUser: 'Look around and dig deeper', lastRole: 'user' },
        reply: { toolCalls: [task('Look around', false), task('Dig deeper', true)] },
      },
      { name: 'child', when: { lastUser: /^(Look around|Dig deeper)\.$/ }, reply: { text: 'Done.' } },
      {
        name: 'parent',
        when: { lastUser: 'Look around and dig deeper', lastRole: 'tool' },
        reply: { text: 'Both on it.' },
      },
      { name: 'woken', when: { lastUser: /^The background subagent/ }, reply: { text: 'Noted.' } },
    ]);
    const { sessionId, handle } = await askAsAPerson(free, 'Look around and dig deeper');
    await handle.result();
    const children = await free.store.children(sessionId);
    const priorityOf = async (title: RegExp) => {
      const child = children.find((session) => title.test(session.title))!;
      return (await free.client.workflow.getHandle(child.id).describe()).priority;
    };
    expect(await priorityOf(/^Look around /)).toMatchObject({ priorityKey: TASK_PRIORITY.interactive });
    expect(await priorityOf(/^Dig deeper /)).toMatchObject({ priorityKey: TASK_PRIORITY.background });
    // The background child's answer wakes the parent; that run ends before the worker stops.
    await waitUntil(async () => free.model.requests.some((r) => r.rule === 'woken'), 30_000);
    await waitUntil(async () => (await free.store.getSession(sessionId))?.status === 'idle', 30_000);
  });
});

describe('task queue fairness', () => {
  it('shares the worker between two batches instead of running the first one to its end', async () => {
    const held = holdFirstCall([{ name: 'task', when: { lastUser: /^[AB] \d+:/ }, reply: { text: 'done' } }]);
    const first = await runBatch(
      env,
      numberedTasks(4, (i) => `A ${i}: say done.`),
      { concurrency: 4 },
    );
    let firstTasks: string[] = [];
    await waitUntil(async () => {
      firstTasks = await taskSessions(first.batch.id);
      return env.model.requests.length === 1 && firstTasks.length === 4 && (await waitingModelCalls(firstTasks)) === 3;
    }, 30_000);
    const second = await runBatch(
      env,
      numberedTasks(4, (i) => `B ${i}: say done.`),
      { concurrency: 4 },
    );
    await waitUntil(async () => {
      const tasks = await taskSessions(second.batch.id);
      return tasks.length === 4 && (await waitingModelCalls(tasks)) === 4;
    }, 30_000);
    held.release();
    await Promise.all([first.handle.result(), second.handle.result()]);

    const order = env.model.requests.map((r) => r.lastUser[0]).join('');
    // First in, first out would serve AAAA then BBBB; fairness takes turns between the two batches.
    expect(order.indexOf('B')).toBeLessThan(order.lastIndexOf('A'));
  });
});
