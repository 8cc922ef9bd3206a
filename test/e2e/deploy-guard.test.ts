import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeDeployment } from '../../worker/versioning/deployments.js';
import { loomBuildId } from '../../worker/versioning/settings.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { runLoom, spawnLoom, type LoomResult } from '../../testkit/loom/run-loom.js';
import { startWorkerProcess, stopProcess, type WorkerProcess } from '../../testkit/loom/worker-process.js';
import { waitUntil } from '../../testkit/wait.js';

// A run of an unversioned worker (Loom 0.1, or LOOM_WORKER_VERSIONING=off) waits on an approval
// when a build that cannot replay it is deployed: as the current build it would get the run's next
// task, so `loom deploy` and `loom worker --make-current` refuse, naming the run, until it ended.

let env: LoomTestEnv;
let versioned: NodeJS.ProcessEnv;
const processes: WorkerProcess[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv({ config: { permission: { bash: { '*': 'ask' } } } });
  versioned = { ...env.env, LOOM_WORKER_VERSIONING: 'on' };
});
afterAll(async () => {
  for (const child of processes) await stopProcess(child, 'SIGKILL').catch(() => undefined);
  await env?.close();
});

/** `loom worker --make-current`, which should exit at once; one that runs on is stopped after a minute. */
async function refusedWorker(): Promise<LoomResult> {
  const { child, result } = spawnLoom(['worker', '--make-current'], { env: versioned, cwd: env.project });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    return await result;
  } finally {
    clearTimeout(timer);
  }
}

describe('deploying a build while runs of unversioned workers are open', () => {
  it('refuses, naming the open run, and deploys once it was ended as the refusal says', async () => {
    env.model.setScript([
      {
        name: 'asks',
        when: { lastUser: 'Clean the build', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'rm -rf build', description: 'Remove build' } }] },
      },
    ]);
    const unversioned = await env.worker();
    const { sessionId } = await env.start('Clean the build');
    await waitUntil(async () => (await env.store.permissionRequests({ status: 'pending' })).length > 0, 30_000);
    unversioned.shutdown();
    await waitUntil(() => Promise.resolve(unversioned.getState() === 'STOPPED'), 30_000);
    const build = loomBuildId();
    const refusal = (result: LoomResult) => {
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(
        `1 run(s) that ran on a worker without versioning (Loom 0.1, or LOOM_WORKER_VERSIONING=off) are still open on task queue "${env.taskQueue}": ${sessionId}.`,
      );
      expect(result.stderr).toContain(
        `As the current build, ${build} would get their next task, and this Loom replays only runs of Loom 0.2 and later`,
      );
      expect(result.stderr).toContain('or end them now: `loom cancel --terminate <session>`');
    };

    const worker = await refusedWorker();
    refusal(worker);
    expect(worker.stderr).toContain('This worker does not start:');
    expect(worker.stderr).not.toContain('Loom worker polling');
    // Refused before it polled: Temporal never heard of its build, so nothing takes it for a live worker.
    expect(await describeDeployment(env.client.workflowService, 'default', env.taskQueue)).toBeUndefined();
    refusal(await runLoom(['deploy'], { env: versioned, cwd: env.project }));
    // The run is untouched: unversioned, waiting for its approval.
    const described = await env.client.workflow.getHandle(sessionId).describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion).toBeFalsy();

    // The way out the refusal names works with no worker of the run's build at all.
    const ended = await runLoom(['cancel', '--terminate', sessionId], { env: versioned, cwd: env.project });
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).toContain(`Ended ${sessionId} without a worker`);
    expect((await env.client.workflow.getHandle(sessionId).describe()).status.name).toBe('TERMINATED');
    expect((await env.store.getSession(sessionId))?.status).toBe('cancelled');
    expect(await env.store.permissionRequests({ status: 'pending' })).toEqual([]);
    processes.push(await startWorkerProcess(versioned, { args: ['--make-current'] }));
    const deployed = await runLoom(['deploy'], { env: versioned, cwd: env.project });
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stderr).toContain(`Build ${build} is current in worker deployment "${env.taskQueue}".`);
  }, 180_000);
});
