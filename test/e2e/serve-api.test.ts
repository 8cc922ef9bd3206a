import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageWithParts } from '../../core/records/message.js';
import type { Session } from '../../core/records/session.js';
import { freePort } from '../../testkit/network/free-port.js';
import { createLoomTestEnv, SCRIPTED_MODEL, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startTestServer, type TestServer } from '../../testkit/loom/serve-app.js';
import { spawnLoom } from '../../testkit/loom/run-loom.js';
import { waitUntil } from '../../testkit/wait.js';

let env: LoomTestEnv;
const servers: TestServer[] = [];

/** A server as `loom serve` builds it, over the test's store and Temporal, on a free port. */
async function startServer(token?: string, corsOrigins?: string[]): Promise<string> {
  const server = await startTestServer(env, { token, corsOrigins });
  servers.push(server);
  return server.base;
}

let base: string;

beforeAll(async () => {
  env = await createLoomTestEnv();
  await env.worker();
  base = await startServer();
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await env?.close();
});

async function call<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

const texts = (messages: MessageWithParts[]) =>
  messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])));

describe('loom serve: the session API', () => {
  it('starts a session, reads it, continues it, and shows its tree', async () => {
    env.model.setScript([
      { name: 'greet', when: { lastUser: 'Say hello' }, reply: { text: 'Hello from the server.' } },
      { name: 'again', when: { lastUser: 'And again' }, reply: { text: 'Hello once more.' } },
    ]);
    const started = await call<{ id: string }>('POST', '/session', {
      prompt: 'Say hello',
      model: SCRIPTED_MODEL,
      title: 'Greeting',
    });
    expect(started.status).toBe(201);
    const id = started.body.id;
    expect(id).toMatch(/^ses_/);

    await waitUntil(async () => {
      const { status, body } = await call<Session>('GET', `/session/${id}`);
      return status === 200 && body.status === 'idle';
    }, 30_000);
    const session = await call<Session>('GET', `/session/${id}`);
    expect(session.body).toMatchObject({ id, title: 'Greeting', agent: 'build', directory: env.project });

    const messages = await call<MessageWithParts[]>('GET', `/session/${id}/message`);
    expect(messages.status).toBe(200);
    expect(messages.body.map((message) => message.info.role)).toEqual(['user', 'assistant']);
    expect(texts(messages.body)).toEqual(['Say hello', 'Hello from the server.']);

    const listed = await call<Session[]>('GET', '/session');
    expect(listed.body.map((row) => row.id)).toContain(id);

    const sent = await call<{ id: string; promptID: string; runID: string }>('POST', `/session/${id}/message`, {
      prompt: 'And again',
    });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ id, promptID: expect.stringMatching(/^prm_/) });
    await waitUntil(
      async () =>
        texts((await call<MessageWithParts[]>('GET', `/session/${id}/message`)).body).includes('Hello once more.'),
      30_000,
    );
    await waitUntil(async () => (await call<Session>('GET', `/session/${id}`)).body.status === 'idle', 30_000);

    expect((await call('GET', `/session/${id}/children`)).body).toEqual([]);
    const tree = await call<{
      session: Session;
      own: { tokens: { input: number } };
      tree: { tokens: { input: number } };
      children: unknown[];
    }>('GET', `/session/${id}/tree`);
    expect(tree.status).toBe(200);
    expect(tree.body.session.id).toBe(id);
    expect(tree.body.children).toEqual([]);
    expect(tree.body.tree.tokens.input).toBe(tree.body.own.tokens.input);
    expect(tree.body.own.tokens.input).toBeGreaterThan(0);

    expect((await call('POST', `/session/${id}/abort`)).body).toEqual({ id, result: 'not-running' });
  });

  it('aborts a busy session', async () => {
    env.model.setScript([
      { name: 'slow', when: { lastUser: 'Take your time' }, reply: { text: 'Too late.', delayMs: 20_000 } },
    ]);
    const { body } = await call<{ id: string }>('POST', '/session', {
      prompt: 'Take your time',
      model: SCRIPTED_MODEL,
    });
    // Busy as soon as it is started (GET /session/{id} knows it before a worker stores it); stored once a worker runs it.
    await waitUntil(async () => (await env.store.getSession(body.id))?.status === 'busy', 30_000);
    expect((await call('POST', `/session/${body.id}/abort`)).body).toEqual({ id: body.id, result: 'cancelled' });
    await waitUntil(
      async () => (await call<Session>('GET', `/session/${body.id}`)).body.status === 'cancelled',
      30_000,
    );
  });

  it('lists the agents', async () => {
    const agents = await call<{ name: string; default: boolean }[]>('GET', '/agent');
    expect(agents.status).toBe(200);
    expect(agents.body.map((agent) => agent.name)).toEqual(expect.arrayContaining(['build', 'plan']));
    expect(agents.body.find((agent) => agent.default)?.name).toBe('build');
  });

  it('answers an unknown session with a 404 naming it', async () => {
    for (const [method, path] of [
      ['GET', '/session/ses_nope'],
      ['GET', '/session/ses_nope/message'],
      ['GET', '/session/ses_nope/children'],
      ['GET', '/session/ses_nope/tree'],
      ['POST', '/session/ses_nope/abort'],
    ] as const) {
      const response = await call<{ error: string }>(method, path);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error).toContain('"ses_nope"');
    }
    const prompt = await call<{ error: string }>('POST', '/session/ses_nope/message', { prompt: 'hi' });
    expect(prompt.status).toBe(404);
    expect(prompt.body.error).toContain('"ses_nope"');
  });

  it('answers an invalid body with a 400 listing the zod issues', async () => {
    const empty = await call<{ error: string; issues: { path: string[]; message: string }[] }>('POST', '/session', {
      prompt: '',
      agent: 7,
    });
    expect(empty.status).toBe(400);
    expect(empty.body.issues.map((issue) => issue.path.join('.')).sort()).toEqual(['agent', 'prompt']);
    expect(empty.body.error).toContain('prompt');

    const notJson = await call<{ error: string }>('POST', '/session', '{nope');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toMatch(/JSON/i);

    const unknownAgent = await call<{ error: string }>('POST', '/session', { prompt: 'hi', agent: 'revieww' });
    expect(unknownAgent.status).toBe(400);
    expect(unknownAgent.body.error).toContain('revieww');

    // The model is checked where the request arrives, before a run starts.
    const unknownProvider = await call<{ error: string }>('POST', '/session', { prompt: 'hi', model: 'nowhere/model' });
    expect(unknownProvider.status).toBe(400);
    expect(unknownProvider.body.error).toContain('Unknown provider "nowhere"');
    // Nothing names a model: the error says how a request names one, not a CLI flag.
    const noModel = await call<{ error: string }>('POST', '/session', { prompt: 'hi' });
    expect(noModel.status).toBe(400);
    expect(noModel.body.error).toMatch(/^No model: send "model": "provider\/model", set "model" in loom.json/);

    const badLimit = await call<{ issues: unknown[] }>('GET', '/session?limit=zero');
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.issues.length).toBeGreaterThan(0);
  });

  it('demands the token on every route when one is set', async () => {
    const withToken = await startServer('s3cret-token');
    for (const path of ['/session', '/doc', '/agent', '/session/ses_nope']) {
      const missing = await fetch(`${withToken}${path}`);
      expect(missing.status, path).toBe(401);
      expect(missing.headers.get('www-authenticate')).toContain('Bearer');
      const wrong = await fetch(`${withToken}${path}`, { headers: { authorization: 'Bearer wrong' } });
      expect(wrong.status, path).toBe(401);
    }
    const right = await fetch(`${withToken}/session`, { headers: { authorization: 'Bearer s3cret-token' } });
    expect(right.status).toBe(200);
    expect(right.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('describes itself at /doc as OpenAPI 3 built from the zod schemas', async () => {
    const doc = await call<{
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    }>('GET', '/doc');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/agent',
        '/event',
        '/session',
        '/session/{id}',
        '/session/{id}/abort',
        '/session/{id}/children',
        '/session/{id}/message',
        '/session/{id}/tree',
      ]),
    );
    expect(Object.keys(doc.body.paths['/event'])).toEqual(['get']);
    expect(Object.keys(doc.body.paths['/session']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.body.paths['/session/{id}']).sort()).toEqual(['delete', 'get']);
    expect(Object.keys(doc.body.components.schemas)).toEqual(
      expect.arrayContaining([
        'Session',
        'MessageWithParts',
        'SessionNode',
        'StartSession',
        'Error',
        'Event',
        'LiveStatus',
      ]),
    );
  });

  it('answers browsers of the configured origins only (CORS), preflight included, before the token check', async () => {
    const server = await startServer('s3cret', ['https://app.example.com']);
    const preflight = (origin: string) =>
      fetch(`${server}/session`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
    const allowed = await preflight('https://app.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect((await preflight('https://evil.example.com')).headers.get('access-control-allow-origin')).toBeNull();
    const read = await fetch(`${server}/session`, {
      headers: { origin: 'https://app.example.com', authorization: 'Bearer s3cret' },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect((await fetch(`${server}/session`, { headers: { origin: 'https://app.example.com' } })).status).toBe(401);
  });

  it('`loom serve` off loopback prints a token, demands it, and stops on SIGTERM', async () => {
    const port = await freePort();
    const { LOOM_SERVER_TOKEN: _unset, ...childEnv } = env.env;
    const { child, result } = spawnLoom(['serve', '--hostname', '0.0.0.0', '--port', String(port)], {
      env: childEnv,
      cwd: env.project,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await waitUntil(() => Promise.resolve(/Token .*: \S+\n/.test(stderr)), 20_000);
      const token = /Token .*: (\S+)\n/.exec(stderr)![1];
      expect(stderr).toContain(`Loom server and web view on http://0.0.0.0:${port} · API described at /doc`);
      expect(stderr).toContain(`a worker already polls task queue "${env.taskQueue}"`);
      expect((await fetch(`http://127.0.0.1:${port}/session`)).status).toBe(401);
      const listed = await fetch(`http://127.0.0.1:${port}/session?all=true`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as Session[]).length).toBeGreaterThan(0);
    } finally {
      child.kill('SIGTERM');
    }
    expect((await result).code).toBe(0);
  });
});

describe('loom serve: its worker', () => {
  /** `loom serve` on a task queue of its own, which no worker polls; its start line once it is listening. */
  async function spawnServe(flags: string[]) {
    const port = await freePort();
    const taskQueue = `${env.taskQueue}-serve-${flags.join('') || 'default'}`;
    const { child, result } = spawnLoom(['serve', '--port', String(port), ...flags], {
      env: { ...env.env, LOOM_TASK_QUEUE: taskQueue },
      cwd: env.project,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitUntil(() => Promise.resolve(stderr.includes('Loom server and web view on')), 60_000);
    return { child, result, taskQueue, stderr: () => stderr, base: `http://127.0.0.1:${port}` };
  }

  it('runs a worker by default, as `loom run` does, so the sessions it starts run', async () => {
    env.model.setScript([{ name: 'ran', when: { lastUser: 'Run here' }, reply: { text: 'Ran in the server.' } }]);
    const served = await spawnServe([]);
    try {
      expect(served.stderr()).toContain(
        `Loom server and web view on ${served.base} · API described at /doc · with a worker on task queue "${served.taskQueue}"`,
      );
      const started = await fetch(`${served.base}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'Run here', model: SCRIPTED_MODEL }),
      });
      const { id } = (await started.json()) as { id: string };
      await waitUntil(async () => (await env.store.getSession(id))?.status === 'idle', 60_000);
      expect(texts(await env.store.messages(id))).toContain('Ran in the server.');
    } finally {
      served.child.kill('SIGTERM');
    }
    expect((await served.result).code).toBe(0);
  });

  it('with --no-worker, says so, and a session it starts waits for a worker', async () => {
    const served = await spawnServe(['--no-worker']);
    try {
      expect(served.stderr()).toContain(
        `no worker here (--no-worker): sessions wait until \`loom worker\` polls task queue "${served.taskQueue}"`,
      );
      const started = await fetch(`${served.base}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'Nobody runs this', model: SCRIPTED_MODEL }),
      });
      expect(started.status).toBe(201);
      const { id } = (await started.json()) as { id: string };
      const read = await fetch(`${served.base}/session/${id}`);
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({
        id,
        status: 'busy',
        waiting: { type: 'worker', taskQueue: served.taskQueue },
      });
      // It can be cancelled while it waits: nothing of it ran, so its run ends at once.
      const aborted = await fetch(`${served.base}/session/${id}/abort`, { method: 'POST' });
      expect(await aborted.json()).toEqual({ id, result: 'cancelled' });
      expect((await env.client.workflow.getHandle(id).describe()).status.name).toBe('TERMINATED');
    } finally {
      served.child.kill('SIGTERM');
    }
    expect((await served.result).code).toBe(0);
  });
});
