// The `loom` CLI in a terminal: streaming, stdin, a busy session, stopping it, and a worker whose
// Temporal server is gone. Beside cli.test.ts, which holds run, show, resume, ls and bad input.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../testkit/network/free-port.js';
import { createCliEnv, exploreScript } from '../../testkit/loom/cli-env.js';
import type { LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson, spawnLoom } from '../../testkit/loom/run-loom.js';
import { startTcpProxy } from '../../testkit/network/tcp-proxy.js';
import { waitFor } from '../../testkit/wait.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createCliEnv();
});
afterAll(() => env?.close());

const loom = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => env.loom(args, { env: extraEnv });

describe('loom run in a terminal', () => {
  it('streams the answer to stdout and tool calls to stderr', async () => {
    exploreScript(env.model);
    const result = await loom(['run', '-m', 'scripted/test-model', 'What is in this project?']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Let me look.');
    expect(result.stdout).toContain('A demo with two TypeScript files.');
    expect(result.stdout).not.toContain('✓');
    expect(result.stderr).toContain('✓ read README.md');
    expect(result.stderr).toContain('✓ glob src/**/*.ts');
    expect(result.stderr).toMatch(/ses_\w+ · completed · 2 steps/);
  });

  it('reads the prompt from stdin', async () => {
    exploreScript(env.model);
    const result = await env.loom(['run', '--json', '-m', 'scripted/test-model'], {
      input: 'What is in this project?\n',
    });
    expect(parseJson(result)).toMatchObject({ status: 'completed' });
  });

  it('queues a prompt for a busy session: loom resume waits for the same run', async () => {
    env.model.setScript([
      { name: 'busy', when: { lastUser: 'Start something long' }, reply: { text: 'Working on it.', delayMs: 8000 } },
      { name: 'queued', when: { lastUser: 'And add this' }, reply: { text: 'Added it too.' } },
    ]);
    const first = spawnLoom(['run', '--json', '-m', 'scripted/test-model', 'Start something long'], {
      env: env.env,
      cwd: env.project,
    });
    await env.model.waitForRequest((r) => r.rule === 'busy', 30_000);
    const [session] = await env.store.listSessions({ limit: 1 });
    const resumed = await loom(['resume', '--json', session.id, 'And add this']);
    expect(parseJson(resumed)).toMatchObject({ sessionId: session.id, status: 'completed', text: 'Added it too.' });
    expect(parseJson(await first.result)).toMatchObject({
      sessionId: session.id,
      status: 'completed',
      text: 'Added it too.',
    });
    const runs = [];
    for await (const run of env.client.workflow.list({ query: `WorkflowId = '${session.id}'` })) runs.push(run);
    expect(runs).toHaveLength(1);
  });

  it('cancels a running session with loom cancel', async () => {
    env.model.setScript([{ name: 'slow', reply: { text: 'tick '.repeat(300), chunkDelayMs: 50, chunkSize: 5 } }]);
    const running = loom(['run', '--json', '-m', 'scripted/test-model', 'Count slowly']);
    await env.model.waitForRequest((r) => r.rule === 'slow', 30_000);
    const [session] = await env.store.listSessions({ limit: 1 });
    const cancelled = await loom(['cancel', session.id]);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stderr).toContain(`Cancellation requested for ${session.id}`);
    const result = await running;
    expect(result.code).toBe(130);
    expect(parseJson(result)).toMatchObject({ sessionId: session.id, status: 'cancelled' });
    expect(await env.store.getSession(session.id)).toMatchObject({ status: 'cancelled' });
  });
});

describe('loom worker without a Temporal server', () => {
  it('says in one line that nothing answers at TEMPORAL_ADDRESS', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const result = await loom(['worker'], { TEMPORAL_ADDRESS: address });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `Error: Cannot reach the Temporal server at ${address} (TEMPORAL_ADDRESS): nothing answers there. Start it, or set TEMPORAL_ADDRESS to a server that runs.`,
    );
  });

  it('says in one line, with no SDK warnings, that the server went away, and carries on when it is back', async () => {
    const proxy = await startTcpProxy(inject('temporalAddress'));
    try {
      const worker = spawnLoom(['worker', '--shared-only'], {
        // A queue of its own, so that no later test takes this worker, gone, for a live one.
        env: { ...env.env, NO_COLOR: '1', TEMPORAL_ADDRESS: proxy.address, LOOM_TASK_QUEUE: `${env.taskQueue}-outage` },
        cwd: env.project,
      });
      let stderr = '';
      worker.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await waitFor(() => stderr.includes('Loom worker polling'), 30_000);
      await proxy.cut();
      await waitFor(() => stderr.includes('Warning:'), 20_000);
      // Long enough for the SDK's poll retries to have warned several times.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      await proxy.restore();
      await waitFor(() => stderr.includes('answers again'), 20_000);
      worker.child.kill('SIGTERM');
      const result = await worker.result;
      expect(result.code).toBe(0);
      const lines = result.stderr.trim().split('\n');
      expect(lines.slice(1, 3)).toEqual([
        `Warning: Cannot reach the Temporal server at ${proxy.address} (TEMPORAL_ADDRESS): nothing answers there. Start it, or set TEMPORAL_ADDRESS to a server that runs. The worker waits for it and carries on when it is back.`,
        `The Temporal server at ${proxy.address} answers again; the worker carries on.`,
      ]);
      expect(result.stderr).not.toContain('[temporal');
    } finally {
      await proxy.close();
    }
  }, 90_000);
});

describe('stopping the CLI', () => {
  it('cancels the run on Ctrl-C', async () => {
    env.model.setScript([{ name: 'slow', reply: { text: 'tock '.repeat(300), chunkDelayMs: 50, chunkSize: 5 } }]);
    const run = spawnLoom(['run', '-m', 'scripted/test-model', 'Count until Ctrl-C'], {
      env: { ...env.env, NO_COLOR: '1' },
      cwd: env.project,
    });
    await env.model.waitForRequest((r) => r.rule === 'slow' && r.lastUser === 'Count until Ctrl-C', 30_000);
    run.child.kill('SIGINT');
    const result = await run.result;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('Cancelling ses_');
    expect(result.stderr).toMatch(/■ ses_\w+ · cancelled/);
  });

  it('leaves the run going on SIGTERM, and a worker started later finishes it', async () => {
    env.model.setScript([
      { name: 'slow', times: 1, reply: { text: 'tick '.repeat(300), chunkDelayMs: 50, chunkSize: 5 } },
      { name: 'later', reply: { text: 'Finished by another worker.' } },
    ]);
    const run = spawnLoom(['run', '-m', 'scripted/test-model', 'Keep going'], {
      env: { ...env.env, NO_COLOR: '1' },
      cwd: env.project,
    });
    await env.model.waitForRequest((r) => r.rule === 'slow' && r.lastUser === 'Keep going', 30_000);
    run.child.kill('SIGTERM');
    const result = await run.result;
    expect(result.stderr).toMatch(/Left (ses_\w+) running/);
    const sessionId = /Left (ses_\w+) running/.exec(result.stderr)![1];
    const handle = env.client.workflow.getHandle(sessionId);
    expect((await handle.describe()).status.name).toBe('RUNNING');

    await env.worker();
    expect(await handle.result()).toMatchObject({ status: 'completed', text: 'Finished by another worker.' });
  });
});
