import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolPart } from '../../core/records/part.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { pidAlive, processesRunning, waitFor } from '../../testkit/wait.js';
import { startWorkerProcess, stopProcess } from '../../testkit/loom/worker-process.js';

let env: LoomTestEnv;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv();
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => stopProcess(worker, 'SIGKILL')));
  await env?.close();
});

describe('a worker killed during a long bash call', () => {
  it('leaves no command behind; the call ends as an error and the session goes on', async () => {
    env.model.setScript([
      {
        name: 'long',
        when: { lastUser: 'Build everything', lastRole: 'user' },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: 'touch build.started; sleep 603', description: 'Long build' } }],
        },
      },
      {
        name: 'after',
        when: { lastUser: 'Build everything', lastRole: 'tool' },
        reply: { text: 'The build was interrupted; I will check before retrying.' },
      },
    ]);
    workers.push(await startWorkerProcess(env.env));
    const { sessionId, result } = await env.start('Build everything');
    await waitFor(() => existsSync(join(env.project, 'build.started')), 30_000);
    // The command runs in the sandbox's own process namespace: its processes are found by what they run.
    const pids = processesRunning('sleep 603');
    expect(pids.length).toBeGreaterThan(0);

    await stopProcess(workers[0], 'SIGKILL');
    await waitFor(() => !pids.some(pidAlive), 5_000);
    workers.push(await startWorkerProcess(env.env));

    expect(await result()).toMatchObject({
      status: 'completed',
      text: 'The build was interrupted; I will check before retrying.',
    });
    const bash = (await env.store.messages(sessionId))
      .flatMap((m) => m.parts)
      .find((p): p is ToolPart => p.type === 'tool')!;
    expect(bash.state.status).toBe('error');
    expect(bash.state.status === 'error' && bash.state.error).toMatch(
      /Tool "bash" was interrupted: the worker running it stopped responding[\s\S]*not run again/,
    );
    const shown = env.model.requests.find((r) => r.rule === 'after')!;
    expect(String(shown.messages.at(-1).content)).toContain('was interrupted');
  }, 120_000);
});
