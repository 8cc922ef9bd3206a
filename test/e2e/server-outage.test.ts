import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, SCRIPTED_MODEL, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson, runLoom, spawnLoom } from '../../testkit/loom/run-loom.js';
import { startTcpProxy, type TcpProxy } from '../../testkit/network/tcp-proxy.js';

// The `loom` CLI reaches Temporal through a proxy the test cuts; the worker, in this process,
// talks to the server directly and keeps the run going, as a worker on another machine would.
let env: LoomTestEnv;
let proxy: TcpProxy;

beforeAll(async () => {
  env = await createLoomTestEnv();
  await env.worker();
  proxy = await startTcpProxy(env.env.TEMPORAL_ADDRESS!);
});
afterAll(async () => {
  await proxy?.close();
  await env?.close();
});

const cliEnv = (extra: NodeJS.ProcessEnv = {}) => ({
  ...env.env,
  TEMPORAL_ADDRESS: proxy.address,
  ...extra,
});

/** A model answer the test lets go when it chooses: the run is busy until then. */
function heldAnswer(prompt: string, text: string): () => void {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  env.model.setScript([
    {
      name: 'held',
      when: { lastUser: prompt },
      reply: async () => {
        await released;
        return { text };
      },
    },
  ]);
  return release;
}

describe('following a run while the Temporal server is unreachable', () => {
  it('reconnects and reports the outcome of a run that completed during the outage', async () => {
    const prompt = 'Work through the outage';
    const release = heldAnswer(prompt, 'Finished while the server was away.');
    const run = spawnLoom(['run', '-m', SCRIPTED_MODEL, prompt], { env: cliEnv(), cwd: env.project });
    await env.model.waitForRequest((r) => r.lastUser === prompt, 30_000);
    const [session] = await env.store.listSessions({ limit: 1 });

    await proxy.cut();
    const cutAt = Date.now();
    // The run goes on without the CLI, and finishes.
    release();
    expect(await env.client.workflow.getHandle(session.id).result()).toMatchObject({ status: 'completed' });
    // Longer than the Temporal client's own retries of a single call (about 20 s).
    await sleep(25_000 - (Date.now() - cutAt));
    await proxy.restore();

    const result = await run.result;
    expect(result.stderr).toMatch(new RegExp(`${session.id} · completed`));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Finished while the server was away.');
    expect(result.stderr).toContain(`Lost the Temporal server at ${proxy.address}`);
    expect(result.stderr.match(/Lost the Temporal server/g)).toHaveLength(1);
    expect(result.stderr).toContain(`Reconnected to the Temporal server at ${proxy.address}`);
    expect(result.stderr).not.toContain('Could not');
  }, 120_000);

  it('gives up after LOOM_FOLLOW_RECONNECT_MS, saying the run may still be going and how to follow it', async () => {
    const prompt = 'Outlast the CLI';
    const release = heldAnswer(prompt, 'Done, with nobody watching.');
    const run = spawnLoom(['run', '--json', '-m', SCRIPTED_MODEL, prompt], {
      env: cliEnv({ LOOM_FOLLOW_RECONNECT_MS: '3000' }),
      cwd: env.project,
    });
    await env.model.waitForRequest((r) => r.lastUser === prompt, 30_000);
    const [session] = await env.store.listSessions({ limit: 1 });

    await proxy.cut();
    const result = await run.result;
    await proxy.restore();

    expect(result.code).toBe(130);
    expect(parseJson(result)).toMatchObject({
      sessionId: session.id,
      status: 'detached',
      error: { name: 'TemporalUnreachable' },
    });
    expect(result.stderr).toContain(`Lost the Temporal server at ${proxy.address}`);
    expect(result.stderr).toContain(`${session.id} may still be going`);
    expect(result.stderr).toContain(`loom show ${session.id}`);

    // It was: the run finishes, and the command the CLI named shows its answer.
    release();
    expect(await env.client.workflow.getHandle(session.id).result()).toMatchObject({ status: 'completed' });
    const shown = await runLoom(['show', session.id], { env: cliEnv(), cwd: env.project });
    expect(shown.stdout).toContain('Done, with nobody watching.');
  }, 60_000);
});
