import { NativeConnection, Worker } from '@temporalio/worker';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { livePollers } from '../../activities/hosts/pollers.js';
import type { ToolPart } from '../../core/part.js';
import { hostTaskQueue } from '../../core/workspace.js';
import { progressQuery } from '../../workflows/api.js';
import { installQuietRuntime } from '../../worker/runtime.js';
import { parseJson, runLoom, spawnLoom, type LoomResult } from '../../testkit/run-loom.js';
import type { RecordedRequest } from '../../testkit/scripted-model-script.js';
import { startSeveralHosts, type SeveralHosts } from '../../testkit/several-hosts.js';
import { waitUntil } from '../../testkit/wait.js';
import { stopProcess, type WorkerProcess } from '../../testkit/worker-process.js';

/** Tasks in the batch case; `LOOM_TEST_HOSTS_BATCH` makes it smaller or larger. */
const BATCH_TASKS = Number(process.env.LOOM_TEST_HOSTS_BATCH || 1000);
const MODEL = 'scripted/test-model';

let hosts: SeveralHosts;
const workers: Record<string, WorkerProcess> = {};

beforeAll(async () => {
  hosts = await startSeveralHosts({
    hosts: ['host-a', 'host-b', 'host-c', 'host-dup'],
    files: { 'host-a': { 'only-on-a.txt': 'the notes that live on host A\n' } },
    // Bash calls print `$PPID` to say which worker process ran them; a sandbox has a process namespace of its own.
    config: { host_wait: 600, sandbox: { enabled: false } },
  });
  const [a, b, c] = await Promise.all(['host-a', 'host-b', 'host-c'].map((host) => hosts.startWorker(host)));
  Object.assign(workers, { 'host-a': a, 'host-b': b, 'host-c': c });
}, 180_000);
afterAll(async () => {
  await hosts?.close();
});

const loom = (host: string, args: string[]) =>
  runLoom(args, { env: hosts.machine(host).env, cwd: hosts.machine(host).workspace });
const toolMessages = (r: RecordedRequest) => r.messages.filter((m) => m.role === 'tool').length;
const lastToolOutput = (r: RecordedRequest) => String(r.messages.filter((m) => m.role === 'tool').at(-1)?.content);
const toolParts = async (sessionId: string) =>
  (await hosts.store.messages(sessionId)).flatMap((m) => m.parts).filter((p): p is ToolPart => p.type === 'tool');
const output = (part: ToolPart) =>
  part.state.status === 'completed' ? part.state.output : part.state.status === 'error' ? part.state.error : '';
/** The `$PPID`s that bash calls printed (`pid 123 …`): the worker process that ran each call. */
const printedPids = (parts: ToolPart[]) =>
  parts.flatMap((part) =>
    part.tool === 'bash' ? [...output(part).matchAll(/pid (\d+)/g)].map((m) => Number(m[1])) : [],
  );

/** The batch that `loom batch run` just stored (the only one in this file's database). */
async function waitForBatch(): Promise<string> {
  let id: string | undefined;
  await waitUntil(async () => (id = (await hosts.store.listBatches())[0]?.id) !== undefined, 60_000);
  return id!;
}

/** The worker identities (`loom@<machine>:<pid>`) that ran a session's activities of one type, from its history. */
async function activityWorkers(sessionId: string, activity: string): Promise<string[]> {
  const history = await hosts.client.workflow.getHandle(sessionId).fetchHistory();
  const scheduled = new Map<string, { type: string; queue: string }>();
  const identities: string[] = [];
  for (const event of history.events ?? []) {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes)
      scheduled.set(String(event.eventId), {
        type: attributes.activityType?.name ?? '',
        queue: attributes.taskQueue?.name ?? '',
      });
    const started = event.activityTaskStartedEventAttributes;
    if (started && scheduled.get(String(started.scheduledEventId))?.type === activity)
      identities.push(started.identity ?? '');
  }
  return identities;
}
const pidOf = (identity: string) => Number(/:(\d+)$/.exec(identity)?.[1]);

describe('several hosts on one Temporal server and one PostgreSQL', () => {
  it("runs every tool of a session on its host's worker process, whichever worker runs the workflow", async () => {
    const prompt = 'Case 1: where do tools run?';
    hosts.model.setScript([
      {
        name: 'case1-step1',
        when: { lastUser: prompt, lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'bash', args: { command: 'echo "pid $PPID first"', description: 'Say where' } },
            { name: 'read', args: { filePath: 'only-on-a.txt' } },
          ],
        },
      },
      {
        name: 'case1-step2',
        when: { lastUser: prompt, lastRole: 'tool', test: (r) => toolMessages(r) === 2 },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: 'echo "pid $PPID second"', description: 'Say where again' } }],
        },
      },
      {
        name: 'case1-answer',
        when: { lastUser: prompt, lastRole: 'tool', test: (r) => toolMessages(r) === 3 },
        reply: { text: 'All on A.' },
      },
    ]);
    const run = await loom('host-a', [
      'run',
      '--json',
      '-m',
      MODEL,
      '--dir',
      hosts.machine('host-a').workspace,
      prompt,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const { sessionId, text } = parseJson(run);
    expect(text).toBe('All on A.');
    expect((await hosts.store.getSession(sessionId))?.host).toBe('host-a');

    const parts = await toolParts(sessionId);
    expect(parts.map((part) => `${part.tool}:${part.state.status}`)).toEqual([
      'bash:completed',
      'read:completed',
      'bash:completed',
    ]);
    const pids = printedPids(parts);
    expect(pids).toEqual([workers['host-a'].pid, workers['host-a'].pid]);
    expect(pids).not.toContain(workers['host-b'].pid);
    expect(pids).not.toContain(workers['host-c'].pid);
    expect(output(parts[1])).toContain('the notes that live on host A');
    // Every tool that went through a queue (not a local activity of A's own worker) was taken by A's process.
    const toolWorkers = await activityWorkers(sessionId, 'runTool');
    expect(toolWorkers.length).toBeGreaterThanOrEqual(2);
    expect(toolWorkers.map(pidOf)).toEqual(toolWorkers.map(() => workers['host-a'].pid));
  }, 120_000);

  it("waits while its host's worker is dead, says so in `loom show`, and goes on in a new worker of that host", async () => {
    const prompt = 'Case 2: survive the loss of host A';
    hosts.model.setScript([
      {
        name: 'case2-before',
        when: { lastUser: prompt, lastRole: 'user' },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: 'echo "pid $PPID before"', description: 'Before the crash' } }],
        },
      },
      {
        name: 'case2-slow',
        when: { lastUser: prompt, lastRole: 'tool', test: (r) => toolMessages(r) === 1 },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: 'echo "pid $PPID after"', description: 'After the crash' } }],
          delayMs: 4_000,
        },
      },
      {
        name: 'case2-answer',
        when: { lastUser: prompt, lastRole: 'tool', test: (r) => toolMessages(r) === 2 },
        reply: { text: 'Survived.' },
      },
    ]);
    const a = hosts.machine('host-a');
    const run = spawnLoom(['run', '--json', '-m', MODEL, prompt], { env: a.env, cwd: a.workspace });
    await hosts.model.waitForRequest((r) => r.rule === 'case2-slow', 60_000);
    const oldA = workers['host-a'];
    await stopProcess(oldA, 'SIGKILL');

    const session = (await hosts.store.listSessions({ roots: true })).find(
      (s) => s.directory === a.workspace && s.status === 'busy',
    );
    expect(session).toBeDefined();
    const sessionId = session!.id;
    const handle = hosts.client.workflow.getHandle(sessionId);
    await waitUntil(async () => (await handle.query(progressQuery)).waitingForHost === 'host-a', 90_000);
    // The bash call of the slow answer is recorded but has not run: no worker serves host A.
    const waiting = await toolParts(sessionId);
    expect(waiting.map((part) => part.state.status)).toEqual([
      'completed',
      expect.not.stringMatching(/completed|error/),
    ]);
    expect(hosts.model.requests.some((r) => r.rule === 'case2-answer')).toBe(false);

    let shown: LoomResult | undefined;
    for (let tries = 0; tries < 5 && !shown?.stdout.includes('waiting for a worker on machine host-a'); tries++)
      shown = await loom('host-b', ['show', sessionId]);
    expect
      .soft(shown?.stdout, 'loom show of a session waiting for host A')
      .toContain('waiting for a worker on machine host-a');

    const newA = await hosts.startWorker('host-a');
    workers['host-a'] = newA;
    const finished = await run.result;
    expect(finished.code, finished.stderr).toBe(0);
    expect(parseJson(finished)).toMatchObject({ sessionId, text: 'Survived.' });
    const parts = await toolParts(sessionId);
    expect(parts.map((part) => `${part.tool}:${part.state.status}`)).toEqual(['bash:completed', 'bash:completed']);
    expect(printedPids(parts)).toEqual([oldA.pid, newA.pid]);
    expect(newA.pid).not.toBe(oldA.pid);
    expect(await handle.query(progressQuery)).not.toHaveProperty('waitingForHost');
  }, 180_000);

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
    const running = loom('host-b', ['batch', 'run', file, '-m', MODEL, '--concurrency', '50', '--json']);
    // Half way, C's worker dies: its workflow tasks and model calls move to A and B, then to a new C.
    const batchId = await waitForBatch();
    await waitUntil(
      async () =>
        (await hosts.store.batchTasks(batchId)).filter((t) => t.outcome.status === 'completed').length >=
        BATCH_TASKS / 2,
      400_000,
    );
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
      for (const identity of await activityWorkers(sessionId, 'callModel')) seen.add(pidOf(identity));
      if ([...expected].every((pid) => seen.has(pid))) break;
    }
    expect(seen).toEqual(expected);
  }, 600_000);

  it('warns when another machine already serves the same host id', async () => {
    installQuietRuntime('ERROR');
    const queue = hostTaskQueue(hosts.taskQueue, 'host-dup');
    const connection = await NativeConnection.connect({ address: hosts.machine('host-dup').env.TEMPORAL_ADDRESS });
    const other = await Worker.create({
      connection,
      namespace: 'default',
      identity: 'loom@other-machine:12345',
      taskQueue: queue,
      activities: { runTool: async () => undefined },
    });
    const running = other.run();
    try {
      await waitUntil(
        async () =>
          (await livePollers(hosts.client.workflowService, 'default', queue, 'activity')).some(
            (p) => p.machine === 'other-machine',
          ),
        30_000,
      );
      const dup = await hosts.startWorker('host-dup');
      expect(dup.output()).toContain('Warning: host id "host-dup" is already served by a worker on other-machine.');
      expect(dup.output()).toContain('give each machine its own LOOM_HOST_ID');
      await stopProcess(dup, 'SIGTERM');
    } finally {
      other.shutdown();
      await running;
      await connection.close();
    }
  }, 60_000);

  it('refuses a bad LOOM_HOST_ID at once, naming it, without a stack trace', async () => {
    const started = Date.now();
    const { child, result } = spawnLoom(['worker'], {
      env: { ...hosts.machine('host-c').env, LOOM_HOST_ID: 'bad id!' },
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const refused = await result;
    clearTimeout(timer);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('LOOM_HOST_ID "bad id!" is not a valid host id');
    expect(refused.stderr).not.toMatch(/^\s+at /m);
    expect(refused.stderr).not.toContain('polling task queue');
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 40_000);
});
