import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { livePollers } from '../../activities/hosts/pollers.js';
import type { ToolPart } from '../../core/records/part.js';
import { hostTaskQueue } from '../../core/runs/workspace.js';
import { progressQuery } from '../../workflows/api.js';
import { installQuietRuntime } from '../../worker/runtime.js';
import { parseJson, spawnLoom, type LoomResult } from '../../testkit/loom/run-loom.js';
import type { RecordedRequest } from '../../testkit/model/scripted-model-script.js';
import {
  activityWorkers,
  pidOf,
  printedPids,
  startSeveralHosts,
  toolOutput,
  type SeveralHosts,
} from '../../testkit/loom/several-hosts.js';
import { waitUntil } from '../../testkit/wait.js';
import { stopProcess, type WorkerProcess } from '../../testkit/loom/worker-process.js';

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
  Object.assign(workers, await hosts.startWorkers(['host-a', 'host-b', 'host-c']));
}, 180_000);
afterAll(() => hosts?.close());

const toolMessages = (r: RecordedRequest) => r.messages.filter((m) => m.role === 'tool').length;
const toolParts = async (sessionId: string) =>
  (await hosts.store.messages(sessionId)).flatMap((m) => m.parts).filter((p): p is ToolPart => p.type === 'tool');

// The 1,000-task batch over these hosts is in several-hosts-batch.test.ts, which runs beside this file.
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
    const run = await hosts.loom('host-a', [
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
    expect(toolOutput(parts[1])).toContain('the notes that live on host A');
    // Every tool that went through a queue (not a local activity of A's own worker) was taken by A's process.
    const toolWorkers = await activityWorkers(hosts.client, sessionId, 'runTool');
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
      shown = await hosts.loom('host-b', ['show', sessionId]);
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
