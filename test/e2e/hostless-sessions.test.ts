import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localHostId } from '../../activities/hosts/host-id.js';
import type { SessionRunInput } from '../../core/runs/run.js';
import { hostTaskQueue } from '../../core/runs/workspace.js';
import { permissionReplyUpdate } from '../../workflows/api.js';
import { agentDoes, prompt, write } from '../../testkit/model/scripted-agent.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { runLoom } from '../../testkit/loom/run-loom.js';
import { waitUntil } from '../../testkit/wait.js';

// Sessions stored by a Loom before hosts have no host id. Every run started from one gets this
// machine's, as `loom resume` gives it: a background subagent's report that wakes it, and a revert.

let env: LoomTestEnv;
let host: string;

beforeAll(async () => {
  env = await createLoomTestEnv({ config: { permission: { bash: { '*': 'ask' } } } });
  host = (await env.worker()).hostId;
  expect(host).toBe(localHostId(env.env));
});
afterAll(() => env?.close());

/** Writes the session's row as a Loom before hosts left it. */
async function forgetHost(sessionId: string): Promise<void> {
  const { host: _dropped, ...older } = (await env.store.getSession(sessionId))!;
  await env.store.saveSession(older);
  expect((await env.store.getSession(sessionId))?.host).toBeUndefined();
}

async function firstInputOf(workflowId: string): Promise<SessionRunInput> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const data = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!.data!;
  return JSON.parse(Buffer.from(data).toString()) as SessionRunInput;
}

describe('a session stored without a host', () => {
  it("is woken by its background subagent's report on this machine's host", async () => {
    env.model.setScript([
      {
        name: 'delegate',
        when: { lastUser: 'Clean in the background', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: { description: 'Clean', prompt: 'Remove build/.', subagent_type: 'general', background: true },
            },
          ],
        },
      },
      { name: 'started', when: { lastUser: 'Clean in the background', lastRole: 'tool' }, reply: { text: 'Started.' } },
      {
        name: 'child-asks',
        when: { lastUser: 'Remove build/.', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'rm -rf build', description: 'Remove build' } }] },
      },
      { name: 'child-done', when: { lastUser: 'Remove build/.', lastRole: 'tool' }, reply: { text: 'Removed.' } },
      { name: 'woken', when: { lastUser: /^The background subagent "Clean / }, reply: { text: 'It is clean.' } },
    ]);
    const { sessionId, result } = await env.start('Clean in the background');
    expect((await result()).text).toBe('Started.');
    let request;
    await waitUntil(
      async () => (request = (await env.store.permissionRequests({ status: 'pending' }))[0]) !== undefined,
      30_000,
    );
    await forgetHost(sessionId);
    await env.client.workflow
      .getHandle(request!.sessionID)
      .executeUpdate(permissionReplyUpdate, { args: [{ requestId: request!.id, reply: 'once' }] });

    await waitUntil(async () => (await env.store.getSession(sessionId))?.host !== undefined, 30_000);
    expect(await env.client.workflow.getHandle(sessionId).result()).toMatchObject({ text: 'It is clean.' });
    expect((await firstInputOf(sessionId)).host).toBe(host);
    expect((await env.store.getSession(sessionId))?.host).toBe(host);
  }, 90_000);

  it("is reverted on this machine's host", async () => {
    env.model.setScript([agentDoes]);
    const run = await env.start(prompt(write('notes.txt', 'from the agent\n')));
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(existsSync(join(env.project, 'notes.txt'))).toBe(true);
    await forgetHost(run.sessionId);

    const reverted = await runLoom(['revert', run.sessionId], { env: env.env, cwd: env.project });
    expect(reverted.code, reverted.stderr).toBe(0);
    expect(reverted.stderr).toContain('1 file restored: notes.txt');
    expect(existsSync(join(env.project, 'notes.txt'))).toBe(false);
    const history = await env.client.workflow.getHandle(`loom-files-${run.sessionId}`).fetchHistory();
    const queues = history.events!.flatMap(
      (event) => event.activityTaskScheduledEventAttributes?.taskQueue?.name ?? [],
    );
    expect(queues).toEqual([hostTaskQueue(env.taskQueue, host)]);
  }, 90_000);
});
