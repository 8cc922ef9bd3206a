import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolPart } from '../../core/records/part.js';
import { parseJson } from '../../testkit/loom/run-loom.js';
import type { RecordedRequest } from '../../testkit/model/scripted-model-script.js';
import {
  activityWorkers,
  pidOf,
  printedPids,
  startSeveralHosts,
  type SeveralHosts,
} from '../../testkit/loom/several-hosts.js';
import { waitUntil } from '../../testkit/wait.js';
import { stopProcess, type WorkerProcess } from '../../testkit/loom/worker-process.js';

// The batch case of several-hosts.test.ts, in a file of its own so that the two run side by side.

/**
 * Tasks in the batch; `LOOM_TEST_HOSTS_BATCH` makes it smaller or larger. A thousand tasks make the
 * batch's history outgrow the bound it is held to, so it has to continue as new.
 */
const BATCH_TASKS = Number(process.env.LOOM_TEST_HOSTS_BATCH || 1000);
const MODEL = 'scripted/test-model';

let hosts: SeveralHosts;
const workers: Record<string, WorkerProcess> = {};

beforeAll(async () => {
  hosts = await startSeveralHosts({
    hosts: ['host-a', 'host-b', 'host-c'],
    // Bash calls print `$PPID` to say which worker process ran them; a sandbox has a process namespace of its own.
    config: { host_wait: 600, sandbox: { enabled: false } },
  });
  Object.assign(workers, await hosts.startWorkers(['host-a', 'host-b', 'host-c']));
}, 180_000);
afterAll(() => hosts?.close());

const lastToolOutput = (r: RecordedRequest) => String(r.messages.filter((m) => m.role === 'tool').at(-1)?.content);

/** The batch that `loom batch run` just stored (the only one in this file's database). */
async function waitForBatch(): Promise<string> {
  let id: string | undefined;
  await waitUntil(async () => (id = (await hosts.store.listBatches())[0]?.id) !== undefined, 60_000);
  return id!;
}

describe('a batch over several hosts on one Temporal server and one PostgreSQL', () => {
  it(`runs a ${BATCH_TASKS.toLocaleString('en-US')}-task batch from host B over three workers, one killed half way, each task once, tools on B`, async () => {
    const withBash = (i: number) => i % 10 === 0;
    hosts.model.setScript([
      {
        name: 'task-bash',
        when: { lastUser: /^Task \d+: run bash$/, lastRole: 'user' },
        reply: (r) => ({
          toolCalls: [
            {
              name: 'bash',
              args: { command: `echo "pid $PPID ${r.lastUser.split(':')[0]}"`, description: 'Say where' },
            },
          ],
        }),
      },
      {
        name: 'task-bash-answer',
        when: { lastUser: /^Task \d+: run bash$/, lastRole: 'tool' },
        reply: (r) => ({ text: lastToolOutput(r) }),
      },
      {
        name: 'task',
        when: { lastUser: /^Task \d+: say done$/, lastRole: 'user' },
        reply: (r) => ({ text: `done: ${r.lastUser.split(':')[0]}` }),
      },
    ]);
    const b = hosts.machine('host-b');
    const file = join(b.workspace, 'tasks.jsonl');
    const lines = Array.from({ length: BATCH_TASKS }, (_, i) => ({
      description: `Task ${i}`,
      prompt: `Task ${i}: ${withBash(i) ? 'run bash' : 'say done'}`,
    }));
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));

    const expected = new Set(['host-a', 'host-b', 'host-c'].map((host) => workers[host].pid!));
    const started = Date.now();
    const running = hosts.loom('host-b', ['batch', 'run', file, '-m', MODEL, '--concurrency', '50', '--json']);
    // Half way, C's worker dies: its workflow tasks and model calls move to A and B, then to a new C.
    const batchId = await waitForBatch();
    await waitUntil(async () => (await hosts.store.batchCounts(batchId)).completed >= BATCH_TASKS / 2, 400_000);
    await stopProcess(workers['host-c'], 'SIGKILL');
    workers['host-c'] = await hosts.startWorker('host-c');
    const run = await running;
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `${BATCH_TASKS}-task batch over three worker processes on PostgreSQL, one killed half way: ${seconds.toFixed(1)} s (${(BATCH_TASKS / seconds).toFixed(1)} tasks/s)`,
    );
    expect(run.code, run.stderr).toBe(0);
    const progress = parseJson(run);
    expect(progress).toMatchObject({
      status: 'completed',
      total: BATCH_TASKS,
      done: BATCH_TASKS,
      failed: 0,
      cancelled: 0,
    });

    const batch = await hosts.store.getBatch(progress.batchId);
    expect(batch).toMatchObject({ status: 'completed', host: 'host-b', directory: b.workspace, total: BATCH_TASKS });
    const tasks = await hosts.store.batchTasks(progress.batchId);
    expect(tasks).toHaveLength(BATCH_TASKS);
    expect(tasks.filter((t) => t.outcome.status === 'completed' && t.outcome.attempts === 1)).toHaveLength(BATCH_TASKS);
    expect(
      tasks.filter((t) => !withBash(t.outcome.index) && t.outcome.text !== `done: Task ${t.outcome.index}`),
    ).toEqual([]);
    const sessionIds = tasks.map((t) => t.outcome.sessionId!);
    expect(new Set(sessionIds).size).toBe(BATCH_TASKS);
    // One session per task and no other in B's workspace, each on host B.
    const inB = (await hosts.store.listSessions()).filter((s) => s.directory === b.workspace);
    expect(inB.map((s) => s.id).sort()).toEqual([...sessionIds].sort());
    expect(inB.every((s) => s.host === 'host-b' && s.status === 'idle')).toBe(true);

    // One user message per session, and every tool ran in B's worker process.
    const bashPids: number[] = [];
    for (let from = 0; from < tasks.length; from += 25) {
      await Promise.all(
        tasks.slice(from, from + 25).map(async ({ outcome }) => {
          const messages = await hosts.store.messages(outcome.sessionId!);
          expect(
            messages.filter((m) => m.info.role === 'user'),
            outcome.sessionId,
          ).toHaveLength(1);
          const parts = messages.flatMap((m) => m.parts).filter((p): p is ToolPart => p.type === 'tool');
          expect(parts.map((part) => part.tool)).toEqual(withBash(outcome.index) ? ['bash'] : []);
          bashPids.push(...printedPids(parts));
          if (withBash(outcome.index))
            expect(outcome.text).toContain(`pid ${workers['host-b'].pid} Task ${outcome.index}`);
        }),
      );
    }
    expect(bashPids).toHaveLength(tasks.filter((t) => withBash(t.outcome.index)).length);
    expect(new Set(bashPids)).toEqual(new Set([workers['host-b'].pid]));
    expect(new Set(hosts.model.requests.filter((r) => /^Task \d+:/.test(r.lastUser)).map((r) => r.lastUser)).size).toBe(
      BATCH_TASKS,
    );

    // The batch's own runs kept their histories bounded (it continues as new after draining).
    for await (const batchRun of hosts.client.workflow.list({ query: `WorkflowId = '${batchId}'` })) {
      const history = await hosts.client.workflow.getHandle(batchId, batchRun.runId).fetchHistory();
      expect(history.events!.length).toBeLessThan(4096);
    }

    // The model calls were spread: each worker process ran some (their histories name the worker).
    const seen = new Set<number>();
    for (const sessionId of sessionIds) {
      for (const identity of await activityWorkers(hosts.client, sessionId, 'callModel')) seen.add(pidOf(identity));
      if ([...expected].every((pid) => seen.has(pid))) break;
    }
    expect(seen).toEqual(expected);
  }, 600_000);
});
