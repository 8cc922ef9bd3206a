import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchProgress, BatchRecord, BatchTaskInput, BatchTaskOutcome } from '../../core/batch/batch.js';
import type { MessageWithParts } from '../../core/records/message.js';
import type { PermissionRequestRecord } from '../../core/rules/permission-request.js';
import type { Session } from '../../core/records/session.js';
import { createLoomTestEnv, SCRIPTED_MODEL, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startTestServer, type TestServer } from '../../testkit/loom/serve-app.js';
import { waitUntil } from '../../testkit/wait.js';

let env: LoomTestEnv;
let server: TestServer;
let base: string;

beforeAll(async () => {
  env = await createLoomTestEnv({ config: { permission: { bash: { '*': 'ask' } } } });
  await env.worker();
  server = await startTestServer(env);
  base = server.base;
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

async function call<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

type Problem = { error: string; issues?: { path: (string | number)[] }[] };
const issuePaths = (problem: Problem) => (problem.issues ?? []).map((issue) => issue.path.join('.')).sort();
const texts = (messages: MessageWithParts[]) =>
  messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])));

/** Starts a session over HTTP whose model asks to run `command`, and returns it with its waiting request. */
async function sessionAsking(prompt: string): Promise<{ id: string; request: PermissionRequestRecord }> {
  const { body } = await call<{ id: string }>('POST', '/session', { prompt, model: SCRIPTED_MODEL });
  let request: PermissionRequestRecord | undefined;
  await waitUntil(async () => {
    request = (await call<PermissionRequestRecord[]>('GET', `/permission?session=${body.id}`)).body[0];
    return request !== undefined;
  }, 30_000);
  return { id: body.id, request: request! };
}

const idle = (id: string) =>
  waitUntil(async () => (await call<Session>('GET', `/session/${id}`)).body.status === 'idle', 30_000);

describe('loom serve: permission requests', () => {
  it('lists, answers once, rejects with feedback, and refuses what it must', async () => {
    env.model.setScript([
      {
        name: 'ask',
        when: { lastUser: /^Run (once|check)$/, lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'echo ran', description: 'Echo' } }] },
      },
      {
        name: 'told',
        when: { lastUser: /^Run (once|check)$/, lastRole: 'tool' },
        reply: (r) => ({ text: `Heard: ${String(r.messages.at(-1).content)}` }),
      },
    ]);
    const first = await sessionAsking('Run once');
    const second = await sessionAsking('Run check');
    expect(first.request).toMatchObject({
      sessionID: first.id,
      rootID: first.id,
      permission: 'bash',
      patterns: ['echo ran'],
      status: 'pending',
    });

    const pending = await call<PermissionRequestRecord[]>('GET', '/permission');
    expect(pending.status).toBe(200);
    expect(pending.body.map((request) => request.id).sort()).toEqual([first.request.id, second.request.id].sort());
    expect((await call('GET', `/permission/${first.request.id}`)).body).toEqual(first.request);

    // Through the session route, only the session's own tree: a client given one session cannot answer another's.
    const crossed = await call<Problem>('POST', `/session/${first.id}/permissions/${second.request.id}`, {
      response: 'once',
    });
    expect(crossed.status).toBe(403);
    expect(crossed.body.error).toContain(second.request.id);
    expect(crossed.body.error).toContain(first.id);
    expect((await call<PermissionRequestRecord>('GET', `/permission/${second.request.id}`)).body.status).toBe(
      'pending',
    );

    const once = await call<PermissionRequestRecord>('POST', `/permission/${first.request.id}/reply`, {
      reply: 'once',
    });
    expect(once.status).toBe(200);
    expect(once.body).toMatchObject({ id: first.request.id, status: 'approved', reply: { reply: 'once' } });
    await idle(first.id);
    expect(texts((await call<MessageWithParts[]>('GET', `/session/${first.id}/message`)).body).at(-1)).toBe(
      'Heard: ran',
    );

    const again = await call<Problem>('POST', `/permission/${first.request.id}/reply`, { reply: 'reject' });
    expect(again.status).toBe(409);
    expect(again.body.error).toContain(`${first.request.id} is no longer waiting: it was approved (once)`);

    const rejected = await call<PermissionRequestRecord>(
      'POST',
      `/session/${second.id}/permissions/${second.request.id}`,
      { response: 'reject', message: 'Use the clock on the wall' },
    );
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      reply: { reply: 'reject', message: 'Use the clock on the wall' },
    });
    await idle(second.id);
    expect(texts((await call<MessageWithParts[]>('GET', `/session/${second.id}/message`)).body).at(-1)).toContain(
      'with the following feedback: Use the clock on the wall',
    );
    expect((await call('GET', '/permission')).body).toEqual([]);
  }, 60_000);

  it('refuses a reply once the run that asked has ended', async () => {
    env.model.setScript([
      {
        name: 'ask',
        when: { lastUser: 'Run then stop', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'echo late', description: 'Echo' } }] },
      },
    ]);
    const asking = await sessionAsking('Run then stop');
    expect((await call('POST', `/session/${asking.id}/abort`)).body).toEqual({ id: asking.id, result: 'cancelled' });
    await waitUntil(
      async () => (await call<Session>('GET', `/session/${asking.id}`)).body.status === 'cancelled',
      30_000,
    );
    const late = await call<Problem>('POST', `/permission/${asking.request.id}/reply`, { reply: 'once' });
    expect(late.status).toBe(409);
    expect(late.body.error).toContain(`${asking.request.id} is no longer waiting: it was cancelled`);

    // A request the store still shows waiting, of a run that has closed (a crash between the two writes).
    await env.store.savePermissionRequest({ ...asking.request, id: 'per_stale' });
    const stale = await call<Problem>('POST', '/permission/per_stale/reply', { reply: 'once' });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toContain(`The run of session ${asking.id} that asked is no longer running`);
  });

  it('answers unknown requests and sessions with 404 and bad bodies with 400', async () => {
    const unknown = await call<Problem>('GET', '/permission/per_nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toContain('"per_nope"');
    const replied = await call<Problem>('POST', '/permission/per_nope/reply', { reply: 'once' });
    expect(replied.status).toBe(404);
    expect(replied.body.error).toContain('"per_nope"');
    expect(
      (await call<Problem>('POST', '/session/ses_nope/permissions/per_nope', { response: 'once' })).body.error,
    ).toContain('"ses_nope"');
    expect((await call('GET', '/permission?session=ses_nope')).status).toBe(404);

    const badReply = await call<Problem>('POST', '/permission/per_nope/reply', { reply: 'maybe' });
    expect(badReply.status).toBe(400);
    expect(issuePaths(badReply.body)).toEqual(['reply']);
    const feedbackWithOnce = await call<Problem>('POST', '/permission/per_nope/reply', {
      reply: 'once',
      message: 'why',
    });
    expect(feedbackWithOnce.status).toBe(400);
    expect(issuePaths(feedbackWithOnce.body)).toEqual(['message']);
    expect((await call('POST', '/session/ses_nope/permissions/per_nope', { reply: 'once' })).status).toBe(400);
  });
});

type BatchDetail = BatchRecord & { counts: Record<BatchTaskOutcome['status'], number>; tokens: { input: number } };

describe('loom serve: batches', () => {
  it('starts a batch, follows it to the end and lists its results', async () => {
    env.model.setScript([
      { name: 'item', when: { lastUser: /^Item \d+$/ }, reply: (r) => ({ text: `handled ${r.lastUser}` }) },
    ]);
    const tasks: BatchTaskInput[] = [0, 1, 2].map((i) => ({ description: `Item ${i}`, prompt: `Item ${i}` }));
    const started = await call<{ id: string; total: number }>('POST', '/batch', {
      tasks,
      model: SCRIPTED_MODEL,
      concurrency: 2,
      retries: 0,
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ id: expect.stringMatching(/^bat_/), total: 3 });
    const id = started.body.id;

    await waitUntil(async () => (await call<BatchDetail>('GET', `/batch/${id}`)).body.status === 'completed', 30_000);
    const detail = await call<BatchDetail>('GET', `/batch/${id}`);
    expect(detail.body).toMatchObject({
      id,
      total: 3,
      agent: 'build',
      directory: env.project,
      concurrency: 2,
      retries: 0,
      // Titled by its tasks, as a file names a batch `loom batch run` starts.
      source: 'Item 0 + 2 more tasks',
    });
    expect(detail.body.counts).toMatchObject({ completed: 3, failed: 0, pending: 0 });
    expect(detail.body.tokens.input).toBeGreaterThan(0);

    const results = await call<{ task: BatchTaskInput; outcome: BatchTaskOutcome }[]>('GET', `/batch/${id}/results`);
    expect(results.status).toBe(200);
    expect(results.body.map(({ task, outcome }) => [task.description, outcome.status, outcome.text])).toEqual(
      [0, 1, 2].map((i) => [`Item ${i}`, 'completed', `handled Item ${i}`]),
    );
    const page = await call<{ outcome: BatchTaskOutcome }[]>('GET', `/batch/${id}/results?from=1&limit=1`);
    expect(page.body.map(({ outcome }) => outcome.index)).toEqual([1]);

    const listed = await call<(BatchRecord & { counts: { completed: number } })[]>('GET', '/batch');
    expect(listed.body[0]).toMatchObject({ id, counts: { completed: 3 } });

    const ended = await call<Problem>('POST', `/batch/${id}/pause`);
    expect(ended.status).toBe(409);
    expect(ended.body.error).toBe(`Batch ${id} already completed (3 done); nothing to pause.`);
  }, 40_000);

  it("refuses a task folder that leaves the batch's directory or is not there, storing nothing", async () => {
    const before = (await call<BatchRecord[]>('GET', '/batch')).body.length;
    const task = { description: 'Item', prompt: 'Item 0' };
    const up = await call<Problem>('POST', '/batch', {
      tasks: [{ ...task, directory: 'a/../../b' }],
      model: SCRIPTED_MODEL,
    });
    expect(up.status).toBe(400);
    expect(issuePaths(up.body)).toEqual(['tasks.0.directory']);
    const missing = await call<Problem>('POST', '/batch', {
      tasks: [task, { ...task, directory: 'nowhere' }],
      model: SCRIPTED_MODEL,
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('task 2 ("Item"): directory "nowhere" does not exist');
    expect((await call<BatchRecord[]>('GET', '/batch')).body).toHaveLength(before);
  });

  it('pauses, changes concurrency, resumes and cancels a running batch', async () => {
    env.model.setScript([
      { name: 'slow', when: { lastUser: /^Slow \d+$/ }, reply: { text: 'slow done', delayMs: 800 } },
    ]);
    const tasks = Array.from({ length: 6 }, (_, i) => ({ description: `Slow ${i}`, prompt: `Slow ${i}` }));
    const { body } = await call<{ id: string }>('POST', '/batch', { tasks, model: SCRIPTED_MODEL, concurrency: 1 });
    const id = body.id;

    const paused = await call<BatchProgress>('POST', `/batch/${id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ batchId: id, status: 'paused', total: 6 });
    const wider = await call<BatchProgress>('POST', `/batch/${id}/concurrency`, { concurrency: 3 });
    expect(wider.body).toMatchObject({ status: 'paused', concurrency: 3 });
    expect((await call<BatchProgress>('POST', `/batch/${id}/resume`)).body.status).toBe('running');
    const cancelled = await call<BatchProgress>('POST', `/batch/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');

    expect((await env.client.workflow.getHandle(id).result()) as BatchProgress).toMatchObject({ status: 'cancelled' });
    const after = await call<Problem>('POST', `/batch/${id}/resume`);
    expect(after.status).toBe(409);
    expect(after.body.error).toContain(id);
  }, 40_000);

  it('answers an unknown batch with 404 and bad bodies with 400', async () => {
    for (const [method, path] of [
      ['GET', '/batch/bat_nope'],
      ['GET', '/batch/bat_nope/results'],
      ['POST', '/batch/bat_nope/pause'],
      ['POST', '/batch/bat_nope/resume'],
      ['POST', '/batch/bat_nope/cancel'],
    ] as const) {
      const response = await call<Problem>(method, path);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error).toContain('"bat_nope"');
    }
    expect((await call<Problem>('POST', '/batch/bat_nope/concurrency', { concurrency: 2 })).status).toBe(404);

    const noTasks = await call<Problem>('POST', '/batch', { tasks: [] });
    expect(noTasks.status).toBe(400);
    expect(issuePaths(noTasks.body)).toEqual(['tasks']);
    const badTask = await call<Problem>('POST', '/batch', {
      tasks: [{ description: 'no prompt' }, { description: 'x', prompt: 'y', colour: 'red' }],
      concurrency: 0,
    });
    expect(badTask.status).toBe(400);
    expect(issuePaths(badTask.body)).toEqual(['concurrency', 'tasks.0.prompt', 'tasks.1']);
    const unknownAgent = await call<Problem>('POST', '/batch', {
      tasks: [{ description: 'x', prompt: 'y', agent: 'revieww' }],
    });
    expect(unknownAgent.status).toBe(400);
    expect(unknownAgent.body.error).toContain('revieww');
    const badConcurrency = await call<Problem>('POST', '/batch/bat_nope/concurrency', { concurrency: 0 });
    expect(badConcurrency.status).toBe(400);
    expect(issuePaths(badConcurrency.body)).toEqual(['concurrency']);
  });

  it('lists the new routes in /doc', async () => {
    const doc = await call<{ paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } }>(
      'GET',
      '/doc',
    );
    expect(Object.keys(doc.body.components.schemas)).toEqual(
      expect.arrayContaining([
        'PermissionRequest',
        'PermissionReply',
        'BatchRow',
        'BatchDetail',
        'BatchResult',
        'BatchProgress',
        'StartBatch',
      ]),
    );
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/permission',
        '/permission/{requestID}',
        '/permission/{requestID}/reply',
        '/session/{id}/permissions/{permissionID}',
        '/batch',
        '/batch/{id}',
        '/batch/{id}/results',
        '/batch/{id}/pause',
        '/batch/{id}/resume',
        '/batch/{id}/cancel',
        '/batch/{id}/concurrency',
      ]),
    );
  });
});
