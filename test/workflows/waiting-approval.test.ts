import { defaultPayloadConverter } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionRequestRecord } from '../../core/rules/permission-request.js';
import { WaitingAttribute } from '../../core/runs/search-attributes.js';
import { permissionReplyUpdate } from '../../workflows/api.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { waitUntil } from '../../testkit/wait.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    config: {
      auto_title: true,
      subagent_depth: 2,
      permission: { bash: { '*': 'ask' } },
      // A subagent that may delegate further: its rules name `task`.
      agent: { lead: { mode: 'subagent', description: 'Leads the work', permission: { task: 'allow' } } },
    },
  });
  await env.worker();
});
afterAll(() => env?.close());

const title = {
  name: 'title',
  when: { system: 'You write a title for a conversation' },
  reply: { text: 'Cleaning the build' },
};

async function pendingIn(rootId: string): Promise<PermissionRequestRecord> {
  let found: PermissionRequestRecord[] = [];
  await waitUntil(
    async () =>
      (found = (await env.store.permissionRequests({ status: 'pending' })).filter((r) => r.rootID === rootId)).length >
      0,
    30_000,
  );
  return found[0];
}

const waiting = async (sessionId: string) =>
  (await env.client.workflow.getHandle(sessionId).describe()).typedSearchAttributes.get(WaitingAttribute);
const details = async (sessionId: string) =>
  (await env.client.workflow.getHandle(sessionId).query<{ currentDetails: string }>('__temporal_workflow_metadata'))
    .currentDetails;

async function activitySummaries(sessionId: string): Promise<string[]> {
  const history = await env.client.workflow.getHandle(sessionId).fetchHistory();
  return (history.events ?? []).flatMap((event) =>
    event.activityTaskScheduledEventAttributes && event.userMetadata?.summary
      ? [defaultPayloadConverter.fromPayload<string>(event.userMetadata.summary as never)]
      : [],
  );
}

/** The run's timers with a summary, as the Temporal UI's timeline labels them, and whether each was cancelled. */
async function labelledTimers(sessionId: string): Promise<{ summary: string; cancelled: boolean }[]> {
  const events = (await env.client.workflow.getHandle(sessionId).fetchHistory()).events ?? [];
  const cancelled = new Set(events.flatMap((event) => event.timerCanceledEventAttributes?.timerId ?? []));
  return events.flatMap((event) =>
    event.timerStartedEventAttributes && event.userMetadata?.summary
      ? [
          {
            summary: defaultPayloadConverter.fromPayload<string>(event.userMetadata.summary as never),
            cancelled: cancelled.has(event.timerStartedEventAttributes.timerId ?? ''),
          },
        ]
      : [],
  );
}

/** Search attributes reach visibility a moment after the run sets them. */
const untilWaiting = (sessionIds: string[], value: boolean) =>
  waitUntil(async () => (await Promise.all(sessionIds.map(waiting))).every((v) => v === value), 15_000);

function expectNamesRequest(text: string, request: PermissionRequestRecord): void {
  // The title's markdown is escaped (`**` of a glob stays as typed), and the lines after it form a
  // list: the Temporal UI's markdown starts one only after a blank line.
  const shownTitle = request.title.replace(/[*_`]/g, '\\$&');
  expect(text).toContain(`⏸ waiting for approval: **${shownTitle}** (${request.id})\n\n- tool \`bash\``);
  expect(text).toContain('tool `bash`');
  expect(text).toContain(request.sessionID);
  expect(text).toContain(`\`loom approve ${request.id}\``);
  expect(text).toContain(`\`loom approve ${request.id} --reject\``);
}

describe('a permission request that waits, seen from the root', () => {
  it("marks the root and the asking subagent waiting, names the request and how to answer it in both runs' details, and keeps the title on the closed run", async () => {
    env.model.setScript([
      title,
      {
        name: 'root',
        when: { lastUser: 'Clean the build', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: { description: 'Clean', prompt: 'Remove the build folder.', subagent_type: 'general' },
            },
          ],
        },
      },
      {
        name: 'child',
        when: { lastUser: 'Remove the build folder.', lastRole: 'user' },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: 'rm -rf build/**/*.o', description: 'Remove build' } }],
        },
      },
      {
        name: 'child-done',
        when: { lastUser: 'Remove the build folder.', lastRole: 'tool' },
        reply: { text: 'Removed.' },
      },
      {
        name: 'root-done',
        when: { lastUser: 'Clean the build', lastRole: 'tool' },
        reply: { text: 'The build is clean.' },
      },
    ]);
    const { sessionId, result } = await env.start('Clean the build');
    const request = await pendingIn(sessionId);
    const child = request.sessionID;
    expect(child).not.toBe(sessionId);
    expect(request).toMatchObject({ tool: 'bash', title: 'bash · rm -rf build/**/*.o', agent: 'general' });

    await untilWaiting([sessionId, child], true);
    await waitUntil(async () => (await details(sessionId)).includes(request.id), 10_000);
    const rootDetails = await details(sessionId);
    expectNamesRequest(rootDetails, request);
    expect(rootDetails).toContain('asked by subagent session');
    expect(rootDetails).toContain('**build** · '); // the run's own details are still there
    expect(rootDetails.startsWith('⏸ waiting for approval')).toBe(true); // first, above the title
    const childDetails = await details(child);
    expectNamesRequest(childDetails, request);
    expect(childDetails).toContain('asked by this session');

    await env.client.workflow
      .getHandle(child)
      .executeUpdate(permissionReplyUpdate, { args: [{ requestId: request.id, reply: 'once' }] });
    await untilWaiting([sessionId, child], false);
    expect(await details(sessionId).catch(() => '')).not.toContain(request.id);
    expect((await result()).text).toBe('The build is clean.');

    const closed = await env.client.workflow.getHandle(sessionId).describe();
    expect(closed.status.name).toBe('COMPLETED');
    expect(closed.memo?.title).toBe('Cleaning the build');
    expect(closed.typedSearchAttributes.get(WaitingAttribute)).toBe(false);
    expect((await env.client.workflow.getHandle(child).describe()).memo?.title).toBe('Clean (@general subagent)');
    // The run's timeline, the Temporal UI's default view of it, labels the ask and the answer.
    expect(await activitySummaries(child)).toEqual(
      expect.arrayContaining([
        `⏸ asks approval: bash · rm -rf build/**/*.o (${request.id}): loom approve ${request.id}`,
        `approved: bash · rm -rf build/**/*.o (${request.id})`,
      ]),
    );

    // The root's timeline, where the subagent's report is a bare `waitingRequests` signal, spans the
    // wait with a labelled timer that ends when the request is answered.
    expect(await labelledTimers(sessionId)).toEqual([
      {
        summary: `⏸ waiting for approval: bash · rm -rf build/**/*.o (${request.id}), asked by subagent session ${child} (@general): loom approve ${request.id}`,
        cancelled: true,
      },
    ]);

    await env.checkReplay(sessionId, 'waiting-approval-root');
    await env.checkReplay(child, 'waiting-approval-child');
  }, 90_000);

  it('marks every ancestor of a grandchild that asks, and clears them all once it is answered', async () => {
    env.model.setScript([
      title,
      {
        name: 'root',
        when: { lastUser: 'Tidy deeply', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Lead', prompt: 'Delegate the tidying.', subagent_type: 'lead' } },
          ],
        },
      },
      {
        name: 'lead',
        when: { lastUser: 'Delegate the tidying.', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Tidy', prompt: 'Tidy the tmp folder.', subagent_type: 'general' } },
          ],
        },
      },
      {
        name: 'leaf',
        when: { lastUser: 'Tidy the tmp folder.', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'rm -rf tmp', description: 'Remove tmp' } }] },
      },
      { name: 'leaf-done', when: { lastUser: 'Tidy the tmp folder.', lastRole: 'tool' }, reply: { text: 'Tidied.' } },
      {
        name: 'lead-done',
        when: { lastUser: 'Delegate the tidying.', lastRole: 'tool' },
        reply: { text: 'Delegated and done.' },
      },
      { name: 'root-done', when: { lastUser: 'Tidy deeply', lastRole: 'tool' }, reply: { text: 'All tidy.' } },
    ]);
    const { sessionId, result } = await env.start('Tidy deeply');
    const request = await pendingIn(sessionId);
    const leaf = request.sessionID;
    const lead = (await env.store.getSession(leaf))!.parentID!;
    expect(new Set([sessionId, lead, leaf]).size).toBe(3);

    await untilWaiting([sessionId, lead, leaf], true);
    await waitUntil(async () => (await details(sessionId)).includes(request.id), 10_000);
    expectNamesRequest(await details(sessionId), request);
    expectNamesRequest(await details(lead), request);

    await env.client.workflow
      .getHandle(leaf)
      .executeUpdate(permissionReplyUpdate, { args: [{ requestId: request.id, reply: 'once' }] });
    expect((await result()).text).toBe('All tidy.');
    await untilWaiting([sessionId, lead, leaf], false);
    // The lead both hears from its subagent and tells its own parent.
    await env.checkReplay(lead, 'waiting-approval-middle');
  }, 90_000);

  it('a background subagent that asks after its parent run closed still waits, is answered, and wakes its parent', async () => {
    env.model.setScript([
      title,
      {
        name: 'root',
        when: { lastUser: 'Clean in the background', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: {
                description: 'Clean later',
                prompt: 'Remove the cache later.',
                subagent_type: 'general',
                background: true,
              },
            },
          ],
        },
      },
      {
        name: 'root-done',
        when: { lastUser: 'Clean in the background', lastRole: 'tool' },
        reply: { text: 'Started it.' },
      },
      // Asks once the parent's run is over: its reports to that run find nobody, which is fine.
      {
        name: 'child',
        when: { lastUser: 'Remove the cache later.', lastRole: 'user' },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: 'rm -rf .cache', description: 'Remove cache' } }],
          delayMs: 1_500,
        },
      },
      {
        name: 'child-done',
        when: { lastUser: 'Remove the cache later.', lastRole: 'tool' },
        reply: { text: 'Cache removed.' },
      },
      {
        name: 'woken',
        when: { lastUser: 'The background subagent "Clean later' },
        reply: { text: 'The cache is gone.' },
      },
    ]);
    const { sessionId, result } = await env.start('Clean in the background');
    expect((await result()).text).toBe('Started it.');
    const request = await pendingIn(sessionId);
    const child = request.sessionID;
    await untilWaiting([child], true);
    expectNamesRequest(await details(child), request);
    expect(await waiting(sessionId)).not.toBe(true);

    await env.client.workflow
      .getHandle(child)
      .executeUpdate(permissionReplyUpdate, { args: [{ requestId: request.id, reply: 'once' }] });
    expect(await env.client.workflow.getHandle(child).result()).toMatchObject({ status: 'completed' });
    await untilWaiting([child], false);
    await waitUntil(async () => env.model.requests.some((r) => r.rule === 'woken'), 30_000);
    // It told the closed run, which refused: the child went on all the same.
    const history = historyToJSON(await env.client.workflow.getHandle(child).fetchHistory());
    expect(history).toContain('EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED');
    await env.checkReplay(child, 'waiting-approval-background-child');
  }, 90_000);
});
