// The first hour's runs left without a worker, picked up by the command that needs them, and undo
// without one: in a file of their own (beside first-hour.test.ts), so that no worker of the other
// cases ever serves their task queue.
import { WorkflowNotFoundError } from '@temporalio/client';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareEnv, createFirstHourEnv, newUserLoom } from '../../testkit/loom/first-hour.js';
import type { LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson, spawnLoom } from '../../testkit/loom/run-loom.js';
import { waitFor } from '../../testkit/wait.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createFirstHourEnv();
});
afterAll(() => env?.close());

const loom = (args: string[]) => newUserLoom(env, args);

/** Starts `loom run` on a prompt that stops at a permission request, then kills it: a run with no worker left. */
async function orphanWaitingForApproval(prompt: string): Promise<{ sessionId: string; requestId: string }> {
  const run = spawnLoom(['run', '-m', 'scripted/test-model', prompt], { env: bareEnv(env), cwd: env.project });
  let stderr = '';
  run.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await waitFor(() => /loom approve (per_\w+)/.test(stderr), 30_000);
  } finally {
    // Even when the wait failed: a `loom run` left running is a worker, which the later cases must not have.
    run.child.kill('SIGKILL');
    await run.result;
  }
  const requestId = /loom approve (per_\w+)/.exec(stderr)![1];
  const request = await env.store.getPermissionRequest(requestId);
  return { sessionId: request!.sessionID, requestId };
}

describe('a run left without a worker', () => {
  it('is cancelled by `loom cancel`, which runs a worker until the cancellation is done', async () => {
    env.model.setScript([
      {
        name: 'ask',
        when: { lastUser: 'Clean up', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'rm -rf build', description: 'Clean' } }] },
      },
    ]);
    const { sessionId } = await orphanWaitingForApproval('Clean up');
    const result = await loom(['cancel', sessionId]);
    expect(result.stderr).toContain('No worker is running on task queue');
    expect(result.stderr).toContain(`Cancelled ${sessionId}.`);
    expect((await env.store.getSession(sessionId))?.status).toBe('cancelled');
  }, 90_000);

  it('goes on after `loom approve`, which runs a worker and follows the run to its end', async () => {
    env.model.setScript([
      {
        name: 'ask',
        when: { lastUser: 'Say hi', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'echo hi', description: 'Greet' } }] },
      },
      { name: 'done', when: { lastUser: 'Say hi', lastRole: 'tool' }, reply: { text: 'Said hi.' } },
    ]);
    const { requestId } = await orphanWaitingForApproval('Say hi');
    const result = await loom(['approve', requestId]);
    expect(result.stderr).toContain('No worker is running on task queue');
    expect(result.stderr).toContain('Allowed once: bash · echo hi');
    expect(result.stdout).toContain('Said hi.');
    expect(result.code).toBe(0);
  }, 90_000);
});

describe('undo without a worker', () => {
  it('reverts, unreverts and forks in the command itself: no worker started, no workflow run', async () => {
    env.model.setScript([
      {
        name: 'write',
        when: { lastUser: 'Write the notes', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'write', args: { filePath: 'notes.txt', content: 'one\ntwo\n' } }] },
      },
      { name: 'written', when: { lastUser: 'Write the notes', lastRole: 'tool' }, reply: { text: 'Written.' } },
    ]);
    const run = await loom(['run', '--json', '-m', 'scripted/test-model', 'Write the notes']);
    const sessionId: string = parseJson(run).sessionId;
    const notes = join(env.project, 'notes.txt');
    expect(readFileSync(notes, 'utf8')).toBe('one\ntwo\n');

    const reverted = await loom(['revert', sessionId]);
    expect(reverted.code, reverted.stderr).toBe(0);
    expect(reverted.stderr).toContain('1 file restored: notes.txt');
    expect(reverted.stderr).not.toContain('No worker');
    expect(existsSync(notes)).toBe(false);
    expect((await loom(['unrevert', sessionId])).code).toBe(0);
    expect(readFileSync(notes, 'utf8')).toBe('one\ntwo\n');
    const dir = join(env.project, '..', 'notes-fork');
    const fork = parseJson(await loom(['fork', sessionId, '1', '--dir', dir, '--json']));
    expect(fork.directory).toBe(dir);
    expect(existsSync(join(dir, 'notes.txt'))).toBe(false);

    // The work was done here: the files workflow a worker would run was never started.
    const files = env.client.workflow.getHandle(`loom-files-${sessionId}`);
    await expect(files.describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  }, 90_000);
});
