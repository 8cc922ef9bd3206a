import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolPart } from '../../core/records/part.js';
import { cancelSession } from '../../client/services/sessions.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { waitUntil } from '../../testkit/wait.js';
import { lastToolOutput } from '../../testkit/model/tool-results.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'README.md': '# Demo\n' } });
  await env.worker();
});
afterAll(() => env?.close());

const sessionIdIn = (text: string) => /session_id: (ses_\w+)/.exec(text)?.[1] ?? '';
const texts = async (sessionId: string) =>
  (await env.store.messages(sessionId)).flatMap((m) => m.parts).flatMap((p) => (p.type === 'text' ? [p.text] : []));
const taskPart = async (sessionId: string) =>
  (await env.store.messages(sessionId))
    .flatMap((m) => m.parts)
    .find((p): p is ToolPart => p.type === 'tool' && p.tool === 'task');

describe('background subagents', () => {
  it('returns at once, works on after the parent run ends, and its answer wakes the parent exactly once', async () => {
    env.model.setScript([
      {
        name: 'start',
        when: { lastUser: 'Research in the background', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: {
                description: 'Slow research',
                prompt: 'Research slowly.',
                subagent_type: 'general',
                background: true,
              },
            },
          ],
        },
      },
      {
        name: 'child',
        when: { lastUser: 'Research slowly.' },
        reply: { text: 'The research is done.', delayMs: 2_500 },
      },
      {
        name: 'parent-done',
        when: { lastUser: 'Research in the background', lastRole: 'tool' },
        reply: { text: 'Started it.' },
      },
      {
        name: 'woken',
        when: { lastUser: 'The background subagent "Slow research' },
        reply: { text: 'Got the research.' },
      },
    ]);
    const { sessionId, result } = await env.start('Research in the background');
    expect((await result()).text).toBe('Started it.');

    const started = lastToolOutput(env.model.requests.findLast((r) => r.rule === 'parent-done')!);
    expect(started).toContain('working in the background');
    const childId = sessionIdIn(started);
    expect(childId).toMatch(/^ses_/);
    // The parent's run is over; the child is not.
    expect(await env.store.getSession(childId)).toMatchObject({
      status: 'busy',
      title: 'Slow research (@general subagent, background)',
    });
    const part = await taskPart(sessionId);
    expect(part?.state).toMatchObject({ status: 'completed', metadata: { background: true, sessionId: childId } });
    await env.checkReplay(sessionId, 'background-task');

    // The child's answer arrives as a prompt, which starts a new run of the idle parent.
    await waitUntil(async () => (await env.store.getSession(childId))?.status === 'idle', 30_000);
    await waitUntil(async () => (await texts(sessionId)).includes('Got the research.'), 30_000);
    await waitUntil(async () => (await env.store.getSession(sessionId))?.status === 'idle', 30_000);
    const woken = env.model.requests.filter((r) => r.rule === 'woken');
    expect(woken).toHaveLength(1);
    expect(woken[0].lastUser).toMatch(
      /^The background subagent "Slow research \(@general subagent, background\)" finished\. Its answer:\n\nThe research is done\.\n\n<task_metadata>\nsession_id: ses_\w+\n<\/task_metadata>$/,
    );
    const delivered = (await env.store.messages(sessionId)).filter(
      (m) => m.info.role === 'user' && m.info.promptID && m.parts.some((p) => p.type === 'text' && p.synthetic),
    );
    expect(delivered).toHaveLength(1);
    await env.checkReplay(sessionId, 'background-wake');
    await env.checkReplay(childId, 'background-child');
  });

  it('task_status waits for a background subagent, and a failed one reports its failure to the parent', async () => {
    env.model.setScript([
      {
        name: 'start',
        when: { lastUser: 'Try the flaky job', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: {
                description: 'Flaky job',
                prompt: 'Do the flaky job.',
                subagent_type: 'general',
                background: true,
              },
            },
          ],
        },
      },
      {
        name: 'child-fails',
        when: { lastUser: 'Do the flaky job.' },
        reply: { status: 400, errorMessage: 'The job is malformed', delayMs: 1_500 },
      },
      {
        name: 'wait',
        when: { lastUser: 'Try the flaky job', lastRole: 'tool', lastTool: 'working in the background' },
        reply: (request) => ({
          toolCalls: [
            {
              name: 'task_status',
              args: { session_id: sessionIdIn(request.lastTool ?? ''), wait: true, timeout_ms: 30_000 },
            },
          ],
        }),
      },
      {
        name: 'waited',
        when: { lastUser: 'Try the flaky job', lastRole: 'tool', lastTool: 'status: ' },
        reply: { text: 'It failed.' },
      },
      { name: 'told', when: { lastUser: 'The background subagent "Flaky job' }, reply: { text: 'Noted the failure.' } },
    ]);
    const { sessionId, result } = await env.start('Try the flaky job');
    await result();
    const statusPart = (await env.store.messages(sessionId))
      .flatMap((m) => m.parts)
      .find((p): p is ToolPart => p.type === 'tool' && p.tool === 'task_status');
    const status = statusPart?.state.status === 'completed' ? statusPart.state.output : '';
    expect(status).toMatch(
      /^status: error\n\n.*The job is malformed[\s\S]*<task_metadata>\nsession_id: ses_\w+\n<\/task_metadata>$/,
    );
    // Whether the report came while that run was still open or after it ended, the parent reads it once.
    await waitUntil(async () => (await texts(sessionId)).includes('Noted the failure.'), 30_000);
    const told = env.model.requests.filter((r) => r.rule === 'told');
    expect(told).toHaveLength(1);
    expect(told[0].lastUser).toContain('failed.');
    expect(told[0].lastUser).toContain('The job is malformed');
  });

  it('refuses task_status for a session of another tree', async () => {
    let otherId = '';
    env.model.setScript([
      { name: 'other', when: { lastUser: 'An unrelated session' }, reply: { text: 'Unrelated.' } },
      {
        name: 'peek',
        when: { lastUser: 'Peek at the other tree', lastRole: 'user' },
        reply: () => ({ toolCalls: [{ name: 'task_status', args: { session_id: otherId } }] }),
      },
      { name: 'peeked', when: { lastUser: 'Peek at the other tree', lastRole: 'tool' }, reply: { text: 'Refused.' } },
    ]);
    const other = await env.start('An unrelated session');
    otherId = other.sessionId;
    await other.result();
    const { result } = await env.start('Peek at the other tree');
    expect((await result()).text).toBe('Refused.');
    expect(lastToolOutput(env.model.requests.findLast((r) => r.rule === 'peeked')!)).toContain(
      `Session ${other.sessionId} is not part of this session's tree`,
    );
  });

  it('loom cancel of the parent session cancels a background subagent still working', async () => {
    env.model.setScript([
      {
        name: 'start',
        when: { lastUser: 'Start a long one', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: {
                description: 'Long work',
                prompt: 'Work for a long time.',
                subagent_type: 'general',
                background: true,
              },
            },
          ],
        },
      },
      { name: 'child', when: { lastUser: 'Work for a long time.' }, reply: { text: 'Never.', delayMs: 60_000 } },
      { name: 'parent-done', when: { lastUser: 'Start a long one', lastRole: 'tool' }, reply: { text: 'Started.' } },
    ]);
    const { sessionId, result } = await env.start('Start a long one');
    await result();
    const childId = sessionIdIn(lastToolOutput(env.model.requests.findLast((r) => r.rule === 'parent-done')!));
    expect((await env.store.getSession(childId))?.status).toBe('busy');
    expect(await cancelSession(env.client, sessionId, env.store)).toBe('cancelled');
    await waitUntil(async () => (await env.store.getSession(childId))?.status === 'cancelled', 30_000);
    // The person stopped the work: the resting parent is not woken to hear of it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await env.store.getSession(sessionId)).toMatchObject({ status: 'idle' });
    expect((await env.store.messages(sessionId)).filter((m) => m.info.role === 'user')).toHaveLength(1);
  });

  it('cancelling the parent run (as the Temporal UI does) cancels the background subagents it started', async () => {
    env.model.setScript([
      {
        name: 'start',
        when: { lastUser: 'Start one, then wait', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: { description: 'Endless', prompt: 'Work forever.', subagent_type: 'general', background: true },
            },
          ],
        },
      },
      { name: 'child', when: { lastUser: 'Work forever.' }, reply: { text: 'Never.', delayMs: 60_000 } },
      {
        name: 'parent-waits',
        when: { lastUser: 'Start one, then wait', lastRole: 'tool' },
        reply: { text: 'Never either.', delayMs: 60_000 },
      },
    ]);
    const { sessionId } = await env.start('Start one, then wait');
    await env.model.waitForRequest((r) => r.rule === 'parent-waits', 20_000);
    const childId = sessionIdIn(lastToolOutput(env.model.requests.findLast((r) => r.rule === 'parent-waits')!));
    await env.client.workflow.getHandle(sessionId).cancel();
    await waitUntil(async () => (await env.store.getSession(childId))?.status === 'cancelled', 30_000);
    expect(await env.store.getSession(sessionId)).toMatchObject({ status: 'cancelled' });
  });

  it('cancelling a later run of the parent (as the Temporal UI does) cancels the background subagents an earlier run started', async () => {
    env.model.setScript([
      {
        name: 'start',
        when: { lastUser: 'Start a long one', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: {
                description: 'Long',
                prompt: 'Work for a long time.',
                subagent_type: 'general',
                background: true,
              },
            },
          ],
        },
      },
      { name: 'child', when: { lastUser: 'Work for a long time.' }, reply: { text: 'Never.', delayMs: 60_000 } },
      { name: 'parent-done', when: { lastUser: 'Start a long one', lastRole: 'tool' }, reply: { text: 'Started.' } },
      { name: 'second-run', when: { lastUser: 'Now something slow' }, reply: { text: 'Slowly.', delayMs: 60_000 } },
    ]);
    const first = await env.start('Start a long one');
    expect((await first.result()).text).toBe('Started.');
    const childId = sessionIdIn(lastToolOutput(env.model.requests.findLast((r) => r.rule === 'parent-done')!));
    expect(await env.store.getSession(childId)).toMatchObject({ status: 'busy' });

    await env.start('Now something slow', { sessionId: first.sessionId });
    await env.model.waitForRequest((r) => r.rule === 'second-run', 20_000);
    await env.client.workflow.getHandle(first.sessionId).cancel();
    await waitUntil(async () => (await env.store.getSession(childId))?.status === 'cancelled', 30_000);
  });
});
