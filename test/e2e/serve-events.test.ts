import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../../activities/store/postgres/store.js';
import type { SessionStore } from '../../activities/store/store.js';
import type { ServerEvent } from '../../client/serve/events/event-types.js';
import { replyToRequest } from '../../client/services/permissions.js';
import { createLoomTestEnv, SCRIPTED_MODEL, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startTestServer, type TestServer } from '../../testkit/loom/serve-app.js';
import { connectEvents, type EventClient, type ReceivedEvent } from '../../testkit/network/sse-client.js';
import { startTcpProxy } from '../../testkit/network/tcp-proxy.js';
import { testStoreKind } from '../../testkit/store/test-store.js';
import { startWorkerProcess, stopProcess } from '../../testkit/loom/worker-process.js';

let env: LoomTestEnv;
const servers: TestServer[] = [];
const clients: EventClient[] = [];

async function startServer(token?: string, store: SessionStore = env.store): Promise<string> {
  const server = await startTestServer(env, { token, store, webUrl: WEB_URL });
  servers.push(server);
  return server.base;
}

let base: string;
const WEB_URL = 'http://loom.example:4096';

beforeAll(async () => {
  env = await createLoomTestEnv({ config: { permission: { bash: { '*': 'ask' } } } });
  await env.worker();
  base = await startServer();
});
afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all(servers.map((server) => server.close()));
  await env?.close();
});

async function subscribe(headers: Record<string, string> = {}, url = `${base}/event`): Promise<EventClient> {
  const client = await connectEvents(url, headers);
  clients.push(client);
  await client.next((event) => event.type === 'server.connected');
  return client;
}

async function startSession(prompt: string): Promise<string> {
  const response = await fetch(`${base}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, model: SCRIPTED_MODEL }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** What an event says, in a few words: for comparing orders. */
function describeEvent(event: ServerEvent): string {
  const p = event.properties as Record<string, never>;
  switch (event.type) {
    case 'session.created':
    case 'session.updated':
      return `${event.type} ${event.properties.info.id}`;
    case 'session.status':
      return `status ${event.properties.sessionID} ${event.properties.status.detail}`;
    case 'message.part.updated': {
      const { part } = event.properties;
      return part.type === 'tool'
        ? `tool ${part.tool} ${part.state.status} ${part.sessionID}`
        : `part ${part.type} ${part.sessionID}`;
    }
    case 'permission.asked':
    case 'permission.replied':
      return `${event.type} ${event.properties.request.sessionID}`;
    default:
      return `${event.type}${p.info ? ` ${(p.info as { sessionID: string }).sessionID}` : ''}`;
  }
}

/** The position of the first event after `from` that reads `text`; fails naming it when none does. */
function positionOf(seen: string[], text: string, from = 0): number {
  const index = seen.indexOf(text, from);
  expect(index, `"${text}" after position ${from} in:\n${seen.join('\n')}`).toBeGreaterThanOrEqual(0);
  return index;
}

const rootIdle = (id: string) => (event: ServerEvent) =>
  event.type === 'session.status' && event.properties.sessionID === id && event.properties.status.detail === 'idle';

describe('loom serve: GET /event', () => {
  let root: string;
  let child: string;
  let received: ReceivedEvent[];

  it('streams a session with a subagent and an approval, in the order it happened', async () => {
    env.model.setScript([
      {
        name: 'delegate',
        when: { lastUser: 'Build it in a helper', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Build', prompt: 'Run the build.', subagent_type: 'general' } },
          ],
        },
      },
      {
        name: 'child-bash',
        when: { lastUser: 'Run the build.', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'echo built', description: 'Build' } }] },
      },
      {
        name: 'child-done',
        when: { lastUser: 'Run the build.', lastRole: 'tool' },
        reply: { text: 'The build printed built.' },
      },
      {
        name: 'root-done',
        when: { lastUser: 'Build it in a helper', lastRole: 'tool' },
        reply: { text: 'The helper built it.' },
      },
    ]);
    const client = await subscribe();
    const other = await subscribe();
    root = await startSession('Build it in a helper');
    const asked = await client.next((event) => event.type === 'permission.asked');
    if (asked.type !== 'permission.asked') throw new Error('unreachable');
    child = asked.properties.request.sessionID;
    expect(child).not.toBe(root);
    await client.next(
      (event) =>
        event.type === 'session.status' &&
        event.properties.sessionID === child &&
        event.properties.status.detail === 'waiting-approval',
    );
    await replyToRequest(env.client, env.store, { requestId: asked.properties.request.id, reply: 'once' });
    await client.next(rootIdle(root));
    await other.next(rootIdle(root));

    received = [...client.events];
    const seen = received.map((r) => describeEvent(r.event));
    let at = positionOf(seen, `session.created ${root}`);
    at = positionOf(seen, `status ${root} busy`, at);
    at = positionOf(seen, `tool task running ${root}`, at);
    at = positionOf(seen, `session.created ${child}`, at);
    at = positionOf(seen, `permission.asked ${child}`, at);
    at = positionOf(seen, `status ${child} waiting-approval`, at);
    positionOf(seen, `status ${root} waiting-approval`, at - 1);
    at = positionOf(seen, `permission.replied ${child}`, at);
    at = positionOf(seen, `tool bash completed ${child}`, at);
    at = positionOf(seen, `status ${child} idle`, at);
    at = positionOf(seen, `tool task completed ${root}`, at);
    positionOf(seen, `status ${root} idle`, at);

    const bash = received
      .map((r) => r.event)
      .findLast(
        (event) =>
          event.type === 'message.part.updated' &&
          event.properties.part.type === 'tool' &&
          event.properties.part.tool === 'bash',
      );
    expect(bash).toMatchObject({
      properties: { part: { state: { status: 'completed', output: expect.stringContaining('built') } } },
    });
    // Each run, the subagent's too, links from the Temporal UI to its page in the web view.
    for (const id of [root, child]) {
      const details = await (await env.client.workflow.getHandle(id).describe()).staticDetails();
      expect(details).toContain(`[Open in Loom](${WEB_URL}/#/session/${id})`);
    }
    const replied = received.find((r) => r.event.type === 'permission.replied')?.event;
    expect(replied).toMatchObject({ properties: { request: { status: 'approved', reply: { reply: 'once' } } } });

    // Every delta extends the text the client had: applying them gives the stored text.
    const texts = new Map<string, string>();
    for (const { event } of received) {
      if (event.type !== 'message.part.updated' || event.properties.part.type !== 'text') continue;
      const { part, delta } = event.properties;
      if (delta !== undefined) expect((texts.get(part.id) ?? '') + delta).toBe(part.text);
      texts.set(part.id, part.text);
    }
    expect([...texts.values()]).toEqual(
      expect.arrayContaining(['Build it in a helper', 'The build printed built.', 'The helper built it.']),
    );

    // Ids only grow, and the second client saw the same stored events.
    const ids = received.flatMap((r) => (r.id === undefined ? [] : [Number(r.id)]));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    const stored = (events: ReceivedEvent[]) =>
      events
        .filter((r) => r.event.type !== 'server.heartbeat' && r.event.type !== 'server.connected')
        .map((r) => describeEvent(r.event));
    expect(stored(other.events.slice(0, other.events.findIndex((r) => rootIdle(root)(r.event)) + 1))).toEqual(
      stored(received.slice(0, received.findIndex((r) => rootIdle(root)(r.event)) + 1)),
    );
  }, 90_000);

  it('gives a client that comes back with Last-Event-ID what it missed, and nothing before', async () => {
    // The id of the change that asked: only its last event carries it, and other rows written in the
    // same change (a session's status) may come after the request's own event.
    const askedAt = received.findIndex((r) => r.event.type === 'permission.asked');
    const resumeFrom = received.slice(askedAt).find((r) => r.id !== undefined)?.id as string;
    const again = await subscribe({ 'Last-Event-ID': resumeFrom });
    expect(again.events[0].event).toEqual({ type: 'server.connected', properties: { cursor: Number(resumeFrom) } });
    await again.next(rootIdle(root));
    const seen = again.events.map((r) => describeEvent(r.event));
    expect(seen).not.toContain(`session.created ${root}`);
    expect(seen).not.toContain(`permission.asked ${child}`);
    let at = positionOf(seen, `permission.replied ${child}`);
    at = positionOf(seen, `tool bash completed ${child}`, at);
    positionOf(seen, `status ${root} idle`, at);
    for (const r of again.events.slice(1))
      if (r.id !== undefined) expect(Number(r.id)).toBeGreaterThan(Number(resumeFrom));
  });

  it('keeps streaming to others when a client stops reading or goes away mid-stream', async () => {
    // The delay keeps the session busy long enough to be seen so: events carry each row's latest
    // state, and a session that starts and ends between two reads is only ever seen idle.
    env.model.setScript([
      { name: 'long', when: { lastUser: 'Write a lot' }, reply: { text: 'word '.repeat(20_000), delayMs: 1_500 } },
    ]);
    const stalled = await connectEvents(`${base}/event`); // never read again
    clients.push(stalled);
    const leaving = await subscribe();
    const reader = await subscribe();
    const id = await startSession('Write a lot');
    await reader.next(
      (event) =>
        event.type === 'session.status' && event.properties.sessionID === id && event.properties.status.type === 'busy',
    );
    leaving.close();
    await leaving.ended;
    await reader.next(rootIdle(id));
    const latest = await subscribe();
    expect(latest.events[0].event.type).toBe('server.connected');
  }, 60_000);

  it('demands the token when one is set: in the header, or as ?token= for EventSource', async () => {
    const guarded = await startServer('s3cret');
    expect((await fetch(`${guarded}/event`)).status).toBe(401);
    expect((await fetch(`${guarded}/event?token=wrong`)).status).toBe(401);
    await subscribe({}, `${guarded}/event?token=s3cret`);
    await subscribe({ Authorization: 'Bearer s3cret' }, `${guarded}/event`);
  });

  it('says a busy session waits for a host when the worker of its workspace goes away', async () => {
    env.model.setScript([
      {
        name: 'far-bash',
        when: { lastUser: 'Run it far away', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'glob', args: { pattern: '*' } }], delayMs: 3_000 },
      },
    ]);
    const far = await startWorkerProcess(env.env, { args: ['--host-only', '--host-id', 'host-far'], cwd: env.project });
    try {
      const client = await subscribe();
      const { sessionId } = await env.start('Run it far away', { host: 'host-far', model: SCRIPTED_MODEL });
      await client.next(
        (event) =>
          event.type === 'session.status' &&
          event.properties.sessionID === sessionId &&
          event.properties.status.type === 'busy',
      );
      await stopProcess(far, 'SIGKILL');
      const waiting = await client.next(
        (event) =>
          event.type === 'session.status' &&
          event.properties.sessionID === sessionId &&
          event.properties.status.detail === 'waiting-host',
        30_000,
      );
      expect(waiting).toMatchObject({
        properties: { status: { type: 'busy', detail: 'waiting-host', host: 'host-far' } },
      });
      await fetch(`${base}/session/${sessionId}/abort`, { method: 'POST' });
      await client.next(
        (event) =>
          event.type === 'session.status' &&
          event.properties.sessionID === sessionId &&
          event.properties.status.detail === 'cancelled',
      );
    } finally {
      await stopProcess(far, 'SIGKILL');
    }
  }, 90_000);

  it.runIf(testStoreKind() === 'postgres')(
    'survives its database going away for a while, and then sends what happened meanwhile',
    async () => {
      const url = new URL(env.env.LOOM_STORE_URL as string);
      const proxy = await startTcpProxy(`${url.hostname}:${url.port}`);
      const throughProxy = new URL(url);
      throughProxy.host = proxy.address;
      const store = await PostgresSessionStore.open(throughProxy.toString());
      try {
        const server = await startServer(undefined, store);
        const client = await subscribe({}, `${server}/event`);
        env.model.setScript([
          {
            name: 'later',
            when: { lastUser: 'While the server is cut off' },
            reply: { text: 'Done without the server.' },
          },
        ]);
        await proxy.cut();
        // The worker reaches the database directly: the session runs while the server cannot read.
        const { sessionId, result } = await env.start('While the server is cut off', { model: SCRIPTED_MODEL });
        await result();
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        expect(
          client.events.some((r) => r.event.type === 'session.created' || r.event.type === 'session.updated'),
        ).toBe(false);
        await proxy.restore();
        await client.next(rootIdle(sessionId), 30_000);
        const text = client.events.findLast(
          (r) => r.event.type === 'message.part.updated' && r.event.properties.part.type === 'text',
        );
        expect(text?.event).toMatchObject({ properties: { part: { text: 'Done without the server.' } } });
      } finally {
        await store.close();
        await proxy.close();
      }
    },
    90_000,
  );
});
