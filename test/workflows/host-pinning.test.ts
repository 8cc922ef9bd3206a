import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolPart } from '../../core/records/part.js';
import { hostTaskQueue } from '../../core/runs/workspace.js';
import { progressQuery } from '../../workflows/api.js';
import type { LoomWorker } from '../../worker/create-worker.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { waitFor, waitUntil } from '../../testkit/wait.js';
import { toolParts, lastToolOutput } from '../../testkit/model/tool-results.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'notes.txt': 'the notes of host A\n' }, config: { host_wait: 600 } });
  // The workflows and model calls run on a worker with no workspaces: every tool has to travel.
  await env.worker({ serve: 'shared', env: { ...env.env, WORKER_NAME: 'shared' } });
  await hostWorker('host-a');
  await hostWorker('host-b');
});
afterAll(async () => {
  await env?.close();
});

function hostWorker(host: string): Promise<LoomWorker> {
  return env.worker({ serve: 'host', hostId: host, env: { ...env.env, WORKER_NAME: host } });
}

const outputs = (parts: ToolPart[]) =>
  parts.map((part) =>
    part.state.status === 'completed' ? part.state.output : part.state.status === 'error' ? part.state.error : '',
  );

async function scheduledQueues(sessionId: string): Promise<string[]> {
  const history = await env.client.workflow.getHandle(sessionId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    return scheduled?.activityType?.name === 'runTool' ? [scheduled.taskQueue!.name!] : [];
  });
}

describe('workspace tools run on the host that holds the workspace', () => {
  it("runs a session's bash and read calls on its host's worker, never on the shared worker or another host", async () => {
    env.model.setScript([
      {
        name: 'both',
        when: { lastUser: 'Where do tools run?', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'bash', args: { command: 'echo "ran on $WORKER_NAME"', description: 'Say where' } },
            { name: 'read', args: { filePath: 'notes.txt' } },
          ],
        },
      },
      { name: 'answer', when: { lastUser: 'Where do tools run?', lastRole: 'tool' }, reply: { text: 'On host A.' } },
    ]);
    const { sessionId, result } = await env.start('Where do tools run?', { host: 'host-a' });
    expect(await result()).toMatchObject({ status: 'completed', text: 'On host A.' });

    const parts = await toolParts(env.store, sessionId);
    expect(outputs(parts)[0]).toContain('ran on host-a');
    expect(outputs(parts)[1]).toContain('the notes of host A');
    // The read was tried in the shared worker first (a local activity), refused there, and sent to host A.
    expect(await scheduledQueues(sessionId)).toEqual([
      hostTaskQueue(env.taskQueue, 'host-a'),
      hostTaskQueue(env.taskQueue, 'host-a'),
    ]);
    expect((await env.store.getSession(sessionId))?.host).toBe('host-a');
    await env.checkReplay(sessionId, 'host-pinned-tools');
  });

  it("gives subagents their parent's host", async () => {
    env.model.setScript([
      {
        name: 'delegate',
        when: { lastUser: 'Ask a helper where it runs', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Where', prompt: 'Say where you run', subagent_type: 'general' } },
          ],
        },
      },
      {
        name: 'child-bash',
        when: { lastUser: 'Say where you run', lastRole: 'user' },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: 'echo "child on $WORKER_NAME"', description: 'Say where' } }],
        },
      },
      {
        name: 'child-answer',
        when: { lastUser: 'Say where you run', lastRole: 'tool' },
        reply: (r) => ({ text: lastToolOutput(r) }),
      },
      {
        name: 'answer',
        when: { lastUser: 'Ask a helper where it runs', lastRole: 'tool' },
        reply: (r) => ({ text: lastToolOutput(r) }),
      },
    ]);
    const { result } = await env.start('Ask a helper where it runs', { host: 'host-b' });
    expect((await result()).text).toContain('child on host-b');
  });

  it('waits while the host has no worker, says so in the run details, and goes on when the host comes', async () => {
    env.model.setScript([
      {
        name: 'bash',
        when: { lastUser: 'Run on C', lastRole: 'user' },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: 'echo "ran on $WORKER_NAME"', description: 'Say where' } }],
        },
      },
      { name: 'answer', when: { lastUser: 'Run on C', lastRole: 'tool' }, reply: (r) => ({ text: lastToolOutput(r) }) },
    ]);
    // No worker has ever served host C: even the run's start (which reads the project's config there) waits.
    const { sessionId, result } = await env.start('Run on C', { host: 'host-c' });
    const handle = env.client.workflow.getHandle(sessionId);
    await waitUntil(async () => (await handle.query(progressQuery)).waitingForHost === 'host-c', 60_000);
    const metadata = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toContain(
      'waiting for a worker on machine host-c (its files are there): start `loom worker` on host-c',
    );
    expect(env.model.requests.some((request) => request.lastUser === 'Run on C')).toBe(false);

    await hostWorker('host-c');
    expect((await result()).text).toContain('ran on host-c');
    await env.checkReplay(sessionId, 'host-wait');
  });

  it('tells the model when a tool waited longer than host_wait for its host', async () => {
    const short = await createLoomTestEnv({ config: { host_wait: 2 } });
    try {
      await short.worker({ serve: 'shared' });
      const hostD = await short.worker({ serve: 'host', hostId: 'host-d' });
      short.model.setScript([
        {
          name: 'bash',
          when: { lastUser: 'Run on D', lastRole: 'user' },
          reply: { toolCalls: [{ name: 'bash', args: { command: 'echo hi', description: 'Greet' } }], delayMs: 1_500 },
        },
        {
          name: 'answer',
          when: { lastUser: 'Run on D', lastRole: 'tool' },
          reply: (r) => ({ text: lastToolOutput(r) }),
        },
      ]);
      const { result } = await short.start('Run on D', { host: 'host-d' });
      await waitFor(() => short.model.requests.some((request) => request.lastUser === 'Run on D'), 30_000);
      hostD.shutdown();
      const { text } = await result();
      expect(text).toMatch(/did not run: no worker of host host-d, which holds the workspace, took it within 2 s/);
      expect(text).toContain('loom worker');
    } finally {
      await short.close();
    }
  });
});
