import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, SCRIPTED_MODEL, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { freePort } from '../../testkit/network/free-port.js';
import { runLoom, spawnLoom } from '../../testkit/loom/run-loom.js';
import { startWorkerProcess, stopProcess, type WorkerProcess } from '../../testkit/loom/worker-process.js';
import { waitUntil } from '../../testkit/wait.js';

// The set-up docs/server.md shows: `loom serve --no-worker`, a session started there, then the
// first `loom worker`. The session's run never had a workflow task, so no build ever ran it: the
// first versioned build to poll takes it, and nothing locks the task queue.

let env: LoomTestEnv;
let versioned: NodeJS.ProcessEnv;
const processes: WorkerProcess[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv();
  versioned = { ...env.env, LOOM_WORKER_VERSIONING: 'on', LOOM_TASK_QUEUE: `${env.taskQueue}-queued` };
});
afterAll(async () => {
  for (const child of processes) await stopProcess(child, 'SIGKILL').catch(() => undefined);
  await env?.close();
});

async function serveWithoutWorker() {
  const port = await freePort();
  const { child, result } = spawnLoom(['serve', '--port', String(port), '--no-worker'], {
    env: versioned,
    cwd: env.project,
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitUntil(() => Promise.resolve(stderr.includes('Loom server and web view on')), 60_000).catch((error) => {
    throw new Error(`loom serve did not start: ${stderr}`, { cause: error });
  });
  return { child, result, base: `http://127.0.0.1:${port}` };
}

async function postSession(base: string, prompt: string): Promise<string> {
  const started = await fetch(`${base}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, model: SCRIPTED_MODEL }),
  });
  expect(started.status).toBe(201);
  return ((await started.json()) as { id: string }).id;
}

describe('a session queued before any worker polled', () => {
  it('runs on the first worker, which starts; loom run works after it; one cancelled while queued ends at once', async () => {
    env.model.setScript([
      { name: 'queued', when: { lastUser: 'Queued hello' }, reply: { text: 'Ran once a worker came.' } },
      { name: 'later', when: { lastUser: 'hello' }, reply: { text: 'Hello from the run.' } },
    ]);
    const served = await serveWithoutWorker();
    try {
      const queued = await postSession(served.base, 'Queued hello');
      const dropped = await postSession(served.base, 'Never wanted');
      const abandoned = await postSession(served.base, 'Not this either');

      // Cancelling a run no worker has started ends it at once, by CLI or web view: nothing ran, nothing is lost.
      expect(await env.store.getSession(dropped)).toBeUndefined();
      const cancelled = await runLoom(['cancel', dropped], { env: versioned, cwd: env.project });
      expect(cancelled.code, cancelled.stderr).toBe(0);
      expect(cancelled.stderr).toContain(`Cancelled ${dropped}: no worker had started it.`);
      const aborted = await fetch(`${served.base}/session/${abandoned}/abort`, { method: 'POST' });
      expect(await aborted.json()).toEqual({ id: abandoned, result: 'cancelled' });
      for (const id of [dropped, abandoned]) {
        expect((await env.client.workflow.getHandle(id).describe()).status.name).not.toBe('RUNNING');
        expect((await fetch(`${served.base}/session/${id}`)).status).toBe(404);
      }

      const worker = await startWorkerProcess(versioned, { cwd: env.project });
      processes.push(worker);
      await waitUntil(async () => (await env.store.getSession(queued))?.status === 'idle', 60_000);
      const answer = await fetch(`${served.base}/session/${queued}/message`);
      expect(JSON.stringify(await answer.json())).toContain('Ran once a worker came.');
      expect(worker.output()).not.toContain('does not start');

      const run = await runLoom(['run', '--model', SCRIPTED_MODEL, 'hello'], { env: versioned, cwd: env.project });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('Hello from the run.');
    } finally {
      served.child.kill('SIGTERM');
      await served.result;
    }
  }, 240_000);
});
