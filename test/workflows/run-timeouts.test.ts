import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../core/records/message.js';
import type { ToolPart } from '../../core/records/part.js';
import { runBatch } from '../../testkit/temporal/batch.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { processesRunning, waitFor, waitUntil } from '../../testkit/wait.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: { 'README.md': '# Timeouts\n' },
    config: {
      agent: {
        general: { timeout: 2000 },
        asker: { mode: 'primary', permission: { bash: 'ask' } },
      },
    },
  });
  await env.worker();
});
afterAll(() => env?.close());

const taskPart = async (sessionId: string) =>
  (await env.store.messages(sessionId))
    .flatMap((m) => m.parts)
    .findLast((p): p is ToolPart => p.type === 'tool' && p.tool === 'task')!;

const sessionOf = (part: ToolPart) => (part.state as { metadata?: { sessionId?: string } }).metadata?.sessionId;

const lastError = async (sessionId: string) =>
  (await env.store.messages(sessionId)).map((m) => m.info).findLast((info) => info.role === 'assistant') as
    AssistantMessage | undefined;

async function failureOf(result: () => Promise<unknown>): Promise<ApplicationFailure> {
  const error = await result().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

describe('a run with a time limit', () => {
  it("cancels a hung subagent at its agent's timeout; the parent carries on and can resume it", async () => {
    env.model.setScript([
      {
        name: 'delegate',
        when: { lastUser: 'Delegate the slow job', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Slow job', prompt: 'Sleep a long time.', subagent_type: 'general' } },
          ],
        },
      },
      {
        name: 'hang',
        when: { lastUser: 'Sleep a long time.', lastRole: 'user' },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: 'touch slow.started; sleep 61', description: 'Hang' } }],
        },
      },
      {
        name: 'carry on',
        when: { lastUser: 'Delegate the slow job', lastRole: 'tool' },
        reply: { text: 'The helper ran out of time; carrying on.' },
      },
    ]);
    const { sessionId, result } = await env.start('Delegate the slow job');
    await waitFor(() => existsSync(join(env.project, 'slow.started')), 30_000);
    const started = Date.now();
    const pids = processesRunning('sleep 61');
    expect(pids.length).toBeGreaterThan(0);

    expect(await result()).toMatchObject({ status: 'completed', text: 'The helper ran out of time; carrying on.' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(processesRunning('sleep 61')).toEqual([]);

    const part = await taskPart(sessionId);
    const childId = sessionOf(part)!;
    expect(childId).toMatch(/^ses_/);
    expect(part.state.status).toBe('error');
    const error = part.state.status === 'error' ? part.state.error : '';
    expect(error).toContain('timed out after 2 s');
    expect(error).toContain(`session_id ${childId}`);
    // The model saw the error as the task's result.
    const last = env.model.requests.findLast((r) => r.rule === 'carry on')!;
    expect(last.lastTool).toContain('timed out');

    expect(await env.store.getSession(childId)).toMatchObject({ status: 'failed' });
    const childMessage = await lastError(childId);
    expect(childMessage?.error).toMatchObject({ name: 'RunTimedOut' });
    expect(childMessage?.error?.message).toContain(`task call with session_id ${childId}`);
    const child = await env.client.workflow.getHandle(childId).describe();
    expect(child.status.name).toBe('FAILED');
    await env.checkReplay(childId, 'timed-out-subagent');
    await env.checkReplay(sessionId, 'timed-out-subagent-parent');

    // The subagent's session is kept: a task call continues it.
    env.model.setScript([
      {
        name: 'continue',
        when: { lastUser: 'Finish the slow job', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: {
                description: 'Slow job, again',
                prompt: 'Answer now.',
                subagent_type: 'general',
                session_id: childId,
              },
            },
          ],
        },
      },
      { name: 'answer', when: { lastUser: 'Answer now.', lastRole: 'user' }, reply: { text: 'Done at last.' } },
      { name: 'finished', when: { lastUser: 'Finish the slow job', lastRole: 'tool' }, reply: { text: 'All done.' } },
    ]);
    const again = await env.start('Finish the slow job', { sessionId });
    expect(await again.result()).toMatchObject({ text: 'All done.' });
    const resumed = await taskPart(sessionId);
    expect(resumed.state).toMatchObject({ status: 'completed' });
    expect(sessionOf(resumed)).toBe(childId);
    expect(env.model.requests.findLast((r) => r.rule === 'answer')!.messages.length).toBeGreaterThan(2);
  }, 90_000);

  it('ends a root run failed with RunTimedOut at its timeoutMs, and its session shows why', async () => {
    env.model.setScript([
      {
        name: 'root hang',
        when: { lastUser: 'Hang at the root', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'sleep 62', description: 'Hang' } }] },
      },
    ]);
    const started = Date.now();
    const { sessionId, result } = await env.start('Hang at the root', { timeoutMs: 2000 });
    const failure = await failureOf(result);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(failure.type).toBe('RunTimedOut');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe(
      `Session ${sessionId} timed out after 2 s (its --timeout of 2 s); its work so far is kept. ` +
        `Continue it with \`loom resume ${sessionId}\`.`,
    );
    await waitFor(() => processesRunning('sleep 62').length === 0, 10_000);
    expect(await env.store.getSession(sessionId)).toMatchObject({ status: 'failed' });
    expect((await lastError(sessionId))?.error).toMatchObject({ name: 'RunTimedOut', message: failure.message });
    const parts = (await env.store.messages(sessionId)).flatMap((m) => m.parts);
    expect(parts.find((p) => p.type === 'tool')).toMatchObject({ tool: 'bash', state: { status: 'error' } });
  }, 60_000);

  it('stops waiting for a permission reply when the time is up', async () => {
    env.model.setScript([
      {
        name: 'ask',
        when: { lastUser: 'Ask first', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'touch asked.ran', description: 'Asks' } }] },
      },
    ]);
    const { sessionId, result } = await env.start('Ask first', { agent: 'asker', timeoutMs: 2000 });
    const failure = await failureOf(result);
    expect(failure.type).toBe('RunTimedOut');
    expect(existsSync(join(env.project, 'asked.ran'))).toBe(false);
    expect(await env.store.getSession(sessionId)).toMatchObject({ status: 'failed' });
  }, 60_000);

  it("gives a batch's tasks their line's timeout, else the batch's --task-timeout", async () => {
    env.model.setScript([
      {
        name: 'batch hang',
        when: { lastUser: /^Hang in a batch/, lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'sleep 65', description: 'Hang' } }] },
      },
      { name: 'batch quick', when: { lastUser: 'Answer quickly', lastRole: 'user' }, reply: { text: 'Quick.' } },
    ]);
    const { batch, handle } = await runBatch(
      env,
      [
        { description: 'Own limit', prompt: 'Hang in a batch (own limit)', timeout: 1500 },
        { description: 'Quick', prompt: 'Answer quickly' },
        { description: 'Batch limit', prompt: 'Hang in a batch (its limit)' },
      ],
      { taskTimeout: 2500 },
    );
    await handle.result();
    const outcomes = (await env.store.batchTasks(batch.id)).map((task) => task.outcome);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['failed', 'completed', 'failed']);
    expect(outcomes[0].error).toContain("timed out after 1.5 s (its batch task's timeout of 1.5 s)");
    expect(outcomes[2].error).toContain("timed out after 2.5 s (its batch task's timeout of 2.5 s)");
    expect(await env.store.getSession(outcomes[0].sessionId!)).toMatchObject({ status: 'failed' });
    await waitFor(() => processesRunning('sleep 65').length === 0, 10_000);
  }, 60_000);

  it('times out a background subagent too, and its parent is told it failed', async () => {
    env.model.setScript([
      {
        name: 'bg delegate',
        when: { lastUser: 'Hang in the background', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: {
                description: 'Background hang',
                prompt: 'Sleep in the background.',
                subagent_type: 'general',
                background: true,
              },
            },
          ],
        },
      },
      {
        name: 'bg hang',
        when: { lastUser: 'Sleep in the background.', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'sleep 66', description: 'Hang' } }] },
      },
      {
        name: 'bg started',
        when: { lastUser: 'Hang in the background', lastRole: 'tool' },
        reply: { text: 'Started.' },
      },
      {
        name: 'bg told',
        when: { lastUser: /^The background subagent "Background hang/ },
        reply: { text: 'It timed out; noted.' },
      },
    ]);
    const { sessionId, result } = await env.start('Hang in the background');
    expect((await result()).text).toBe('Started.');
    const childId = sessionOf(await taskPart(sessionId))!;
    await waitUntil(async () => env.model.requests.some((r) => r.rule === 'bg told'), 30_000);
    const told = env.model.requests.find((r) => r.rule === 'bg told')!;
    expect(told.lastUser).toContain('failed.');
    expect(told.lastUser).toContain(`Session ${childId} timed out after 2 s`);
    expect(await env.store.getSession(childId)).toMatchObject({ status: 'failed' });
    await waitFor(() => processesRunning('sleep 66').length === 0, 10_000);
  }, 60_000);
});
