import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolPart } from '../../core/records/part.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { pidAlive, processesRunning, waitFor, waitUntil } from '../../testkit/wait.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: { 'notes.md': '# Notes\n' },
    config: {
      subagent_depth: 2,
      max_concurrent_subagents: 2,
      agent: { general: { permission: { task: 'allow' } } },
    },
  });
  await env.worker();
});
afterAll(() => env?.close());

async function treeOf(rootId: string) {
  const runs = [];
  for await (const run of env.client.workflow.list({ query: `LoomRootSession = '${rootId}'` })) runs.push(run);
  return runs;
}

const allToolParts = async (sessionIds: string[]) =>
  (await Promise.all(sessionIds.map((id) => env.store.messages(id))))
    .flat()
    .flatMap((m) => m.parts)
    .filter((p): p is ToolPart => p.type === 'tool');

describe('a tree of subagents', () => {
  it('cancels every run of the tree when the root is cancelled, killing a grandchild’s command', async () => {
    env.model.setScript([
      {
        name: 't-root',
        when: { lastUser: 'Go deep', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Middle', prompt: 'Delegate further.', subagent_type: 'general' } },
          ],
        },
      },
      {
        name: 't-middle',
        when: { lastUser: 'Delegate further.', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Bottom', prompt: 'Sleep a long time.', subagent_type: 'explore' } },
          ],
        },
      },
      {
        name: 't-bottom',
        when: { lastUser: 'Sleep a long time.', lastRole: 'user' },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: 'touch deep.started; sleep 604', description: 'Sleep' } }],
        },
      },
    ]);
    const { sessionId, result } = await env.start('Go deep');
    await waitFor(() => existsSync(join(env.project, 'deep.started')), 30_000);
    // The command runs in the sandbox's own process namespace: its processes are found by what they run.
    const pids = processesRunning('sleep 604');
    expect(pids.length).toBeGreaterThan(0);
    const middle = env.model.requests.findLast((r) => r.rule === 't-middle')!;
    expect(middle.toolNames).toContain('task');
    const bottom = env.model.requests.findLast((r) => r.rule === 't-bottom')!;
    expect(bottom.toolNames).not.toContain('task');

    const started = Date.now();
    await env.client.workflow.getHandle(sessionId).cancel();
    await expect(result()).rejects.toThrow();
    await waitFor(() => !pids.some(pidAlive), 10_000);
    let runs = await treeOf(sessionId);
    for (let i = 0; i < 100 && runs.some((run) => run.status.name === 'RUNNING'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      runs = await treeOf(sessionId);
    }
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(runs).toHaveLength(3);
    expect(runs.map((run) => run.status.name)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']);

    const sessions = runs.map((run) => run.workflowId);
    const parts = await allToolParts(sessions);
    expect(parts).toHaveLength(3);
    expect(parts.every((part) => part.state.status === 'error' && part.state.error === 'Tool execution aborted')).toBe(
      true,
    );
    for (const id of sessions) expect(await env.store.getSession(id)).toMatchObject({ status: 'cancelled' });
    await env.checkReplay(sessionId, 'cancelled-tree');
  }, 60_000);

  it('runs at most max_concurrent_subagents at once, and shows a child’s steps on the parent’s part as they happen', async () => {
    env.model.setScript([
      {
        name: 'cap-root',
        when: { lastUser: 'Three helpers', lastRole: 'user' },
        reply: {
          toolCalls: ['one', 'two', 'three'].map((n) => ({
            name: 'task',
            args: { description: `Helper ${n}`, prompt: `Helper ${n}: read the notes.`, subagent_type: 'general' },
          })),
        },
      },
      {
        name: 'cap-read',
        when: { lastUser: /^Helper \w+: read the notes\.$/, lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'notes.md' } }] },
      },
      {
        name: 'cap-answer',
        when: { lastUser: /^Helper \w+: read the notes\.$/, lastRole: 'tool' },
        reply: { text: 'read it', delayMs: 1500 },
      },
      { name: 'cap-done', when: { lastUser: 'Three helpers', lastRole: 'tool' }, reply: { text: 'All three done.' } },
    ]);
    const { sessionId, result } = await env.start('Three helpers');
    await env.model.waitForRequest((r) => r.rule === 'cap-answer', 20_000);
    // While the children still work, a task call's part shows its child's finished read. (The
    // child's step reaches the parent's part a moment after the child's model sees the result.)
    const summaries = async () =>
      (await env.store.messages(sessionId))
        .flatMap((m) => m.parts)
        .flatMap((p) =>
          p.type === 'tool' && p.tool === 'task' && p.state.status === 'running'
            ? [p.state.metadata?.summary as { tool: string; status: string }[]]
            : [],
        );
    await waitUntil(
      async () =>
        (await summaries()).some((summary) =>
          summary?.some((step) => step.tool === 'read' && step.status === 'completed'),
        ),
      5_000,
    );
    const running = (await summaries()).find((summary) => summary?.some((step) => step.status === 'completed'));
    expect(running).toEqual([expect.objectContaining({ tool: 'read', status: 'completed' })]);

    expect((await result()).text).toBe('All three done.');
    const children = (await treeOf(sessionId)).filter((run) => run.workflowId !== sessionId);
    expect(children).toHaveLength(3);
    const spans = children.map((run) => [run.startTime.getTime(), run.closeTime!.getTime()]);
    const overlapping = (at: number) => spans.filter(([start, end]) => start <= at && at < end).length;
    expect(Math.max(...spans.map(([start]) => overlapping(start)))).toBeLessThanOrEqual(2);
  }, 60_000);
});
