import { Worker } from '@temporalio/worker';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PACKAGE_ROOT } from '../../activities/process/package-root.js';
import { bundleWorkflows } from '../../worker/bundle.js';
import type { PermissionRequestRecord } from '../../core/rules/permission-request.js';
import { batchProgressQuery, permissionReplyUpdate } from '../../workflows/api.js';
import { numberedTasks, runBatch } from '../../testkit/temporal/batch.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson, runLoom } from '../../testkit/loom/run-loom.js';
import { startWorkerProcess, stopProcess, type WorkerProcess } from '../../testkit/loom/worker-process.js';
import { waitUntil } from '../../testkit/wait.js';
import { launchChromium } from '../../testkit/browser/chromium.js';
import { freePort } from '../../testkit/network/free-port.js';
import { startTemporalServer } from '../../testkit/temporal/temporal-server.js';

// An upgrade while runs are in flight: build A (Loom's code, `loom worker` in a process of its own)
// runs a session waiting on an approval and a batch half done; build B, whose workflows start with
// a timer A's never do (testkit/temporal/upgrade-interceptors.ts), so it could not replay A's runs, is made
// current with `loom deploy`. A's runs end on A, the session's next prompt runs on B.

const B_BUILD = 'upgrade-test-b';
let folder: string;
let bundleB: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'loom-upgrade-'));
  bundleB = join(folder, 'workflow-bundle-b.js');
  const code = await bundleWorkflows('plain', [join(PACKAGE_ROOT, 'testkit', 'temporal', 'upgrade-interceptors.ts')]);
  writeFileSync(bundleB, code);
}, 120_000);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The build a run is pinned to, as Temporal records it (the Temporal UI shows the same). */
async function buildOf(env: LoomTestEnv, workflowId: string, runId?: string): Promise<string | undefined> {
  const described = await env.client.workflow.getHandle(workflowId, runId).describe();
  return described.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId ?? undefined;
}

async function pendingRequest(env: LoomTestEnv, rootId: string): Promise<PermissionRequestRecord> {
  let found: PermissionRequestRecord[] = [];
  await waitUntil(
    async () =>
      (found = (await env.store.permissionRequests({ status: 'pending' })).filter((r) => r.rootID === rootId)).length >
      0,
    30_000,
  );
  return found[0]!;
}

for (const killed of [false, true]) {
  describe(killed ? 'an upgrade with the old worker killed while it drains' : 'an upgrade with runs in flight', () => {
    let env: LoomTestEnv;
    const processes: WorkerProcess[] = [];
    let versioned: NodeJS.ProcessEnv;

    beforeAll(async () => {
      env = await createLoomTestEnv({
        config: { permission: { bash: { '*': 'ask' } } },
      });
      versioned = { ...env.env, LOOM_WORKER_VERSIONING: 'on' };
    });
    afterAll(async () => {
      for (const child of processes) await stopProcess(child, 'SIGKILL').catch(() => undefined);
      await env?.close();
    });

    it("finishes A's runs on A, runs the next prompt on B, and loses or repeats nothing", async () => {
      env.model.setScript([
        {
          name: 'delegate',
          when: { lastUser: 'Clean the build', lastRole: 'user' },
          reply: {
            toolCalls: [
              { name: 'task', args: { description: 'Clean', prompt: 'Remove build/.', subagent_type: 'general' } },
            ],
          },
        },
        {
          name: 'child-asks',
          when: { lastUser: 'Remove build/.', lastRole: 'user' },
          reply: { toolCalls: [{ name: 'bash', args: { command: 'rm -rf build', description: 'Remove build' } }] },
        },
        { name: 'child-done', when: { lastUser: 'Remove build/.', lastRole: 'tool' }, reply: { text: 'Removed.' } },
        { name: 'root-done', when: { lastUser: 'Clean the build', lastRole: 'tool' }, reply: { text: 'Clean.' } },
        { name: 'again', when: { lastUser: 'Once more' }, reply: { text: 'Still clean.' } },
        { name: 'task', when: { lastUser: /^Task \d+/ }, reply: { text: 'done', delayMs: 700 } },
      ]);
      let workerA = await startWorkerProcess(versioned);
      processes.push(workerA);
      const buildA = /as build (\S+) of worker deployment/.exec(workerA.output())?.[1];
      expect(buildA, workerA.output()).toBeDefined();

      // On A: a session whose subagent waits on an approval, and a batch half done.
      const { sessionId, result } = await env.start('Clean the build');
      const request = await pendingRequest(env, sessionId);
      const firstRun = (await env.client.workflow.getHandle(sessionId).describe()).runId;
      // A model call cut off by the kill is tried again on A's next worker, as any durable call is.
      const modelRetry = { maximumAttempts: 5, initialIntervalMs: 100, maximumIntervalMs: 500 };
      const { batch, handle: batchHandle } = await runBatch(env, numberedTasks(8), { concurrency: 2, modelRetry });
      await waitUntil(async () => (await batchHandle.query(batchProgressQuery)).done >= 3, 60_000);
      expect(await buildOf(env, sessionId)).toBe(buildA);
      expect(await buildOf(env, request.sessionID)).toBe(buildA);
      expect(await buildOf(env, batch.id)).toBe(buildA);

      // B polls, and `loom deploy` makes it current.
      const workerB = await env.worker({
        serve: 'shared',
        workflowCodePath: bundleB,
        versioning: { deploymentName: env.taskQueue, buildId: B_BUILD, makeCurrent: 'never' },
      });
      await workerB.versionAdopted();
      const deployed = await runLoom(['deploy', '--build-id', B_BUILD], { env: versioned, cwd: env.project });
      expect(deployed.code, deployed.stderr).toBe(0);
      expect(deployed.stderr).toContain(`Build ${B_BUILD} is now current`);
      expect(deployed.stderr).toContain(`runs started on ${buildA} finish on theirs`);
      expect(deployed.stdout).toMatch(new RegExp(`${buildA!.replace(/[.+]/g, '\\$&')}\\s+draining`));

      if (killed) {
        await stopProcess(workerA, 'SIGKILL');
        workerA = await startWorkerProcess(versioned);
        processes.push(workerA);
        // It does not take the deployment back: B stays current.
        expect(workerA.output()).toContain(`new sessions of task queue "${env.taskQueue}" go to build ${B_BUILD}`);
      }

      // A's runs end on A: the approval answered, the session's turn and the batch finish there.
      await env.client.workflow
        .getHandle(request.sessionID)
        .executeUpdate(permissionReplyUpdate, { args: [{ requestId: request.id, reply: 'once' }] });
      expect((await result()).text).toBe('Clean.');
      expect(await buildOf(env, sessionId, firstRun)).toBe(buildA);
      expect(await buildOf(env, request.sessionID)).toBe(buildA);
      expect(await batchHandle.result()).toMatchObject({ status: 'completed', done: 8, failed: 0 });
      const tasks = await env.store.batchTasks(batch.id);
      for (const task of tasks) expect(await buildOf(env, task.outcome.sessionId!)).toBe(buildA);
      // Nothing run twice: each task ran once, as one session with one answer. Without the kill,
      // each task's prompt also reached the model once.
      expect(tasks.map((task) => task.outcome)).toEqual(
        tasks.map(() => expect.objectContaining({ status: 'completed', attempts: 1, text: 'done' })),
      );
      expect(new Set(tasks.map((task) => task.outcome.sessionId)).size).toBe(8);
      for (const task of tasks) {
        const answers = (await env.store.messages(task.outcome.sessionId!)).filter(
          (message) => message.info.role === 'assistant',
        );
        expect(answers, `task ${task.outcome.sessionId}`).toHaveLength(1);
      }
      if (!killed)
        for (let index = 0; index < 8; index++) {
          const asked = env.model.requests.filter((r) => r.lastUser === `Task ${index}: say done.`);
          expect(asked, `task ${index}`).toHaveLength(1);
        }

      // The session's next prompt runs on B, whose code could not have replayed A's run.
      const resumed = await runLoom(['resume', sessionId, 'Once more', '--json'], { env: env.env, cwd: env.project });
      expect(parseJson(resumed)).toMatchObject({ status: 'completed', text: 'Still clean.' });
      expect(await buildOf(env, sessionId)).toBe(B_BUILD);
      const historyOnA = await env.client.workflow.getHandle(sessionId, firstRun).fetchHistory();
      await expect(
        Worker.runReplayHistory({ workflowBundle: { codePath: bundleB } }, historyOnA, sessionId),
      ).rejects.toThrow(/[Nn]ondetermin/);

      // A drains: `loom deploy --status` says its workers may stop.
      await waitUntil(async () => {
        const status = parseJson(
          await runLoom(['deploy', '--status', '--json'], { env: versioned, cwd: env.project }),
        ) as { current: string; versions: { buildId: string; status: string }[] };
        return (
          status.current === B_BUILD && status.versions.some((v) => v.buildId === buildA && v.status === 'drained')
        );
      }, 60_000);
    }, 240_000);
  });
}

// One machine, as with the embedded dev server: the old build's worker is gone with its code, and
// the new build makes itself current and takes the old build's open runs, because its workflow code
// replays them (here the same code under another build id, as after a change that keeps replay).
describe('an upgrade on one machine whose new build can replay the open runs', () => {
  let temporal: TestWorkflowEnvironment;
  let browser: Browser;
  let env: LoomTestEnv;
  let uiPort: number;

  beforeAll(async () => {
    uiPort = await freePort();
    temporal = await startTemporalServer({ binary: inject('temporalBinary'), uiPort });
    browser = await launchChromium();
    env = await createLoomTestEnv({ address: temporal.address, config: { permission: { bash: { '*': 'ask' } } } });
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    await browser?.close();
    await temporal?.teardown();
  });

  it("moves them to the new build, where they finish, and the Temporal UI shows each run's build", async () => {
    env.model.setScript([
      {
        name: 'delegate',
        when: { lastUser: 'Tidy up', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Tidy', prompt: 'Remove tmp/.', subagent_type: 'general' } },
          ],
        },
      },
      {
        name: 'child-asks',
        when: { lastUser: 'Remove tmp/.', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'rm -rf tmp', description: 'Remove tmp' } }] },
      },
      { name: 'child-done', when: { lastUser: 'Remove tmp/.', lastRole: 'tool' }, reply: { text: 'Removed.' } },
      { name: 'root-done', when: { lastUser: 'Tidy up', lastRole: 'tool' }, reply: { text: 'Tidy.' } },
    ]);
    const versioning = (buildId: string, makeCurrent: 'when-none' | 'always') => ({
      deploymentName: env.taskQueue,
      buildId,
      makeCurrent,
    });
    const old = await env.worker({ versioning: versioning('same-code-a', 'when-none') });
    expect(await old.versionAdopted()).toMatchObject({ current: 'same-code-a' });
    const { sessionId, result } = await env.start('Tidy up');
    const request = await pendingRequest(env, sessionId);
    expect(await buildOf(env, sessionId)).toBe('same-code-a');
    old.shutdown();
    await waitUntil(() => Promise.resolve(old.getState() === 'STOPPED'), 30_000);

    const next = await env.worker({ versioning: versioning('same-code-b', 'always') });
    const adopted = await next.versionAdopted();
    expect(adopted).toMatchObject({ current: 'same-code-b', replaced: 'same-code-a' });
    expect(adopted!.runs!.kept).toEqual([]);
    expect(adopted!.runs!.moved.map((run) => run.workflowId).sort()).toEqual([request.sessionID, sessionId].sort());

    await env.client.workflow
      .getHandle(request.sessionID)
      .executeUpdate(permissionReplyUpdate, { args: [{ requestId: request.id, reply: 'once' }] });
    expect((await result()).text).toBe('Tidy.');
    expect(await buildOf(env, sessionId)).toBe('same-code-b');

    // The run's page in the Temporal UI names its deployment and build.
    const ui = await browser.newPage();
    try {
      await ui.goto(`http://localhost:${uiPort}/namespaces/default/workflows/${sessionId}`);
      await ui.getByText(sessionId).first().waitFor({ timeout: 30_000 });
      await ui.getByText('same-code-b').first().waitFor({ timeout: 30_000 });
    } finally {
      await ui.close();
    }
  }, 180_000);

  it('`loom deploy` names a build no worker runs, and says when versioning is off', async () => {
    const unknown = await runLoom(['deploy', '--build-id', 'never-ran'], {
      env: { ...env.env, LOOM_WORKER_VERSIONING: 'on' },
      cwd: env.project,
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`No worker of build never-ran has polled task queue "${env.taskQueue}"`);
    const status = await runLoom(['deploy', '--status'], {
      env: { ...env.env, LOOM_WORKER_VERSIONING: 'on' },
      cwd: env.project,
    });
    expect(status.stdout).toMatch(/same-code-b\s+current · new runs go here/);
    const loomStatus = await runLoom(['status'], {
      env: { ...env.env, LOOM_WORKER_VERSIONING: 'on' },
      cwd: env.project,
    });
    expect(loomStatus.stdout).toMatch(
      new RegExp(`deployment +"${env.taskQueue}", build same-code-b current( · \\S+ \\w+)* · this installation: \\S+`),
    );
    const statusOff = await runLoom(['status', '--json'], { env: env.env, cwd: env.project });
    expect(parseJson(statusOff)).toMatchObject({ temporal: { deployment: { versioning: 'off' } } });
    const off = await runLoom(['deploy'], { env: env.env, cwd: env.project });
    expect(off.code).toBe(2);
    expect(off.stderr).toContain('Worker versioning is off (LOOM_WORKER_VERSIONING=off)');
    const wrong = await runLoom(['deploy'], { env: { ...env.env, LOOM_WORKER_VERSIONING: 'maybe' }, cwd: env.project });
    expect(wrong.stderr).toContain('LOOM_WORKER_VERSIONING must be "on" or "off" (it is "maybe")');
  }, 60_000);
});
