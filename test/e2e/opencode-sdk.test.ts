// OpenCode's own SDK (@opencode-ai/sdk, v1 and v2) as a client of `loom serve`: a script drives a
// session with the calls it would make against `opencode serve`, over a real server, Temporal and worker.
import { createOpencodeClient, type Event, type OpencodeClient } from '@opencode-ai/sdk';
import { createOpencodeClient as createV2Client } from '@opencode-ai/sdk/v2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, SCRIPTED_MODEL, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startTestServer, type TestServer } from '../../testkit/loom/serve-app.js';

let env: LoomTestEnv;
let server: TestServer;
let sdk: OpencodeClient;
/** Event streams still open: closed before the server, which waits for its connections. */
const streams = new Set<AbortController>();

beforeAll(async () => {
  env = await createLoomTestEnv({ config: { model: SCRIPTED_MODEL, permission: { bash: { '*': 'ask' } } } });
  await env.worker();
  server = await startTestServer(env);
  sdk = createOpencodeClient({ baseUrl: server.base });
});
afterAll(async () => {
  streams.forEach((stream) => stream.abort());
  await server?.close();
  await env?.close();
});

/** `GET /event` through the SDK, kept in order; `next` waits for the first event after the last one taken that matches. */
async function subscribe() {
  const stop = new AbortController();
  streams.add(stop);
  const events: Event[] = [];
  const { stream } = await sdk.event.subscribe({ signal: stop.signal });
  let wake = () => undefined as void;
  void (async () => {
    for await (const event of stream) {
      events.push(event as Event);
      wake();
    }
  })().catch(() => undefined);
  let taken = 0;
  return {
    events,
    async next<T extends Event['type']>(
      type: T,
      where: (event: Extract<Event, { type: T }>) => boolean = () => true,
      timeoutMs = 30_000,
    ): Promise<Extract<Event, { type: T }>> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = events.findIndex(
          (event, at) => at >= taken && event.type === type && where(event as Extract<Event, { type: T }>),
        );
        if (index >= 0) {
          taken = index + 1;
          return events[index] as Extract<Event, { type: T }>;
        }
        if (Date.now() > deadline)
          throw new Error(`No ${type} event in:\n${events.map((event) => event.type).join('\n')}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => stop.abort(),
  };
}

const text = (value: string) => ({ type: 'text' as const, text: value });

describe("OpenCode's SDK against loom serve", () => {
  it('creates a session, prompts it asynchronously, streams the answer on the events and lists the messages', async () => {
    env.model.setScript([
      {
        when: { lastUser: 'Say hello' },
        reply: { text: 'Hello from a durable session.', chunkSize: 4, chunkDelayMs: 150 },
      },
    ]);
    const events = await subscribe();
    const created = await sdk.session.create({ body: { title: 'From the SDK' } });
    expect(created.response.status).toBe(200);
    const session = created.data!;
    expect(session).toMatchObject({ title: 'From the SDK', directory: env.project, version: expect.any(String) });
    expect(session.id).toMatch(/^ses_/);

    const sent = await sdk.session.promptAsync({ path: { id: session.id }, body: { parts: [text('Say hello')] } });
    expect(sent.response.status).toBe(204);

    await events.next('session.status', (event) => event.properties.sessionID === session.id);
    const idle = await events.next('session.idle', (event) => event.properties.sessionID === session.id);
    expect(idle.properties.sessionID).toBe(session.id);
    // The deltas of the answer's text part add up to its text, as OpenCode's clients read them.
    const updates = events.events.flatMap((event) =>
      event.type === 'message.part.updated' && event.properties.part.type === 'text' ? [event.properties] : [],
    );
    const answerPart = updates.find((update) => update.part.type === 'text' && update.part.text.endsWith('session.'));
    const answerUpdates = updates.filter((update) => update.part.id === answerPart?.part.id);
    expect(answerUpdates.length).toBeGreaterThan(1);
    expect(answerUpdates.map((update) => update.delta ?? '').join('')).toBe('Hello from a durable session.');
    // The prompt's own text is not streamed: no delta, so a client that prints deltas prints the answer only.
    const promptUpdate = updates.find((update) => update.part.type === 'text' && update.part.text === 'Say hello');
    expect(promptUpdate).toBeDefined();
    expect(promptUpdate!.delta).toBeUndefined();
    const assistantUpdate = events.events.find(
      (event) => event.type === 'message.updated' && event.properties.info.role === 'assistant',
    );
    expect(assistantUpdate).toMatchObject({
      properties: { info: { sessionID: session.id, providerID: 'scripted', modelID: 'test-model', mode: 'build' } },
    });
    events.close();

    const messages = (await sdk.session.messages({ path: { id: session.id } })).data!;
    expect(messages.map((message) => message.info.role)).toEqual(['user', 'assistant']);
    expect(messages[1].parts).toContainEqual(
      expect.objectContaining({ type: 'text', text: 'Hello from a durable session.' }),
    );
    const one = await sdk.session.message({ path: { id: session.id, messageID: messages[1].info.id } });
    expect(one.data).toMatchObject({ info: { id: messages[1].info.id, role: 'assistant' } });
    // Read back, a session is OpenCode's Session too, wherever it is served.
    const openCodeSession = { id: session.id, projectID: env.project, version: expect.any(String) };
    expect((await sdk.session.get({ path: { id: session.id } })).data).toMatchObject({
      ...openCodeSession,
      status: 'idle',
    });
    expect((await sdk.session.list()).data).toContainEqual(expect.objectContaining(openCodeSession));
  }, 60_000);

  it('answers a blocking prompt with the assistant message once the turn ends', async () => {
    env.model.setScript([{ when: { lastUser: 'What is 2 + 2?' }, reply: { text: 'Four.' } }]);
    const session = (await sdk.session.create()).data!;
    const answer = await sdk.session.prompt({
      path: { id: session.id },
      body: { parts: [text('What is 2 + 2?')], model: { providerID: 'scripted', modelID: 'test-model' } },
    });
    expect(answer.response.status).toBe(200);
    expect(answer.data!.info).toMatchObject({ role: 'assistant', sessionID: session.id, finish: 'stop' });
    expect(answer.data!.info.error).toBeUndefined();
    expect(answer.data!.parts).toContainEqual(expect.objectContaining({ type: 'text', text: 'Four.' }));
    // Loom's own form of the same route still answers at once.
    const loomForm = await server.request<{ id: string; promptID: string }>('POST', `/session/${session.id}/message`, {
      prompt: 'What is 2 + 2?',
    });
    expect(loomForm.status).toBe(202);
  }, 60_000);

  it('asks for a permission on the events, takes the reply through the SDK, and runs the tool', async () => {
    env.model.setScript([
      {
        when: { lastUser: 'Echo it', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'echo from-bash', description: 'Echo' } }] },
      },
      { when: { lastUser: 'Echo it', lastRole: 'tool' }, reply: (r) => ({ text: `Tool said: ${r.lastTool.trim()}` }) },
    ]);
    const events = await subscribe();
    const session = (await sdk.session.create({ body: {} })).data!;
    await sdk.session.promptAsync({ path: { id: session.id }, body: { parts: [text('Echo it')] } });

    const updated = await events.next('permission.updated', (event) => event.properties.sessionID === session.id);
    expect(updated.properties).toMatchObject({ type: 'bash', pattern: ['echo from-bash'], title: expect.any(String) });
    const status = await events.next('session.status', (event) => event.properties.sessionID === session.id);
    expect(status.properties.status.type).toBe('busy');

    // v1's session-scoped reply, as `opencode`'s older clients send it.
    const replied = await sdk.postSessionIdPermissionsPermissionId({
      path: { id: session.id, permissionID: updated.properties.id },
      body: { response: 'once' },
    });
    expect(replied.response.status).toBe(200);
    const answered = await events.next('permission.replied', (event) => event.properties.sessionID === session.id);
    expect(answered.properties).toMatchObject({ permissionID: updated.properties.id, response: 'once' });
    await events.next('session.idle', (event) => event.properties.sessionID === session.id);
    events.close();
    const messages = (await sdk.session.messages({ path: { id: session.id } })).data!;
    const parts = messages.flatMap((message) => message.parts);
    expect(parts).toContainEqual(
      expect.objectContaining({ type: 'tool', tool: 'bash', state: expect.objectContaining({ status: 'completed' }) }),
    );
    expect(parts).toContainEqual(expect.objectContaining({ type: 'text', text: 'Tool said: from-bash' }));
  }, 60_000);

  it("answers v2's permission.asked with v2's permission.reply", async () => {
    env.model.setScript([
      {
        when: { lastUser: 'Echo again', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'echo again', description: 'Echo' } }] },
      },
      { when: { lastUser: 'Echo again', lastRole: 'tool' }, reply: { text: 'Refused, fine.' } },
    ]);
    const v2 = createV2Client({ baseUrl: server.base });
    const stop = new AbortController();
    streams.add(stop);
    const { stream } = await v2.event.subscribe(undefined, { signal: stop.signal });
    const session = (await v2.session.create({})).data!;
    await v2.session.promptAsync({ sessionID: session.id, parts: [text('Echo again')] });
    let requestID = '';
    let reply = '';
    for await (const event of stream) {
      if (event.type === 'permission.asked' && event.properties.sessionID === session.id) {
        expect(event.properties).toMatchObject({ permission: 'bash', patterns: ['echo again'] });
        expect(event.properties.tool?.callID).toEqual(expect.any(String));
        requestID = event.properties.id;
        await v2.permission.reply({ requestID, reply: 'reject', message: 'not now' });
      }
      if (event.type === 'permission.replied' && event.properties.sessionID === session.id) {
        expect(event.properties.requestID).toBe(requestID);
        reply = event.properties.reply;
      }
      if (event.type === 'session.idle' && event.properties.sessionID === session.id) break;
    }
    stop.abort();
    expect(reply).toBe('reject');
  }, 60_000);

  it('aborts a turn: session.error with MessageAbortedError, session.idle, and the run cancelled', async () => {
    env.model.setScript([
      {
        when: { lastUser: 'Wait for me' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'echo waiting', description: 'Echo' } }] },
      },
    ]);
    const events = await subscribe();
    const session = (await sdk.session.create({ body: {} })).data!;
    const blocking = sdk.session.prompt({ path: { id: session.id }, body: { parts: [text('Wait for me')] } });
    await events.next('permission.updated', (event) => event.properties.sessionID === session.id);
    const busy = (await sdk.session.status()).data!;
    expect(busy[session.id]).toEqual({ type: 'busy', detail: 'waiting-approval', requestIDs: [expect.any(String)] });

    const aborted = await sdk.session.abort({ path: { id: session.id } });
    expect(aborted.response.status).toBe(200);
    expect(aborted.data).toBeTruthy();
    const error = await events.next('session.error', (event) => event.properties.sessionID === session.id);
    expect(error.properties.error).toMatchObject({
      name: 'MessageAbortedError',
      data: { message: expect.any(String) },
    });
    await events.next('session.idle', (event) => event.properties.sessionID === session.id);
    events.close();
    // The blocking prompt answers with the aborted turn's message and its error, as OpenCode's does.
    const answer = await blocking;
    expect((await sdk.session.status()).data![session.id]).toBeUndefined();
    expect(answer.data!.info).toMatchObject({ role: 'assistant', error: { name: 'MessageAbortedError' } });
    const run = await env.client.workflow.getHandle(session.id).describe();
    expect(run.status.name).toBe('CANCELLED');
  }, 60_000);

  it('names what is wrong: an unknown session, a part Loom cannot take, a parent', async () => {
    const unknown = await sdk.session.promptAsync({ path: { id: 'ses_nope' }, body: { parts: [text('hi')] } });
    expect(unknown.response.status).toBe(404);
    expect(unknown.error).toMatchObject({
      name: 'NotFoundError',
      data: { message: expect.stringContaining('ses_nope') },
    });

    const session = (await sdk.session.create({ body: {} })).data!;
    const file = await sdk.session.promptAsync({
      path: { id: session.id },
      body: { parts: [text('look'), { type: 'file', mime: 'text/plain', url: 'file:///tmp/x.txt' }] },
    });
    expect(file.response.status).toBe(400);
    expect(file.error).toMatchObject({ data: { message: expect.stringContaining('parts[1] is a "file" part') } });

    const system = await sdk.session.promptAsync({
      path: { id: session.id },
      body: { parts: [text('hi')], system: 'Answer in French.' },
    });
    expect(system.response.status).toBe(400);
    expect(system.error).toMatchObject({ data: { message: expect.stringContaining('system is not supported') } });

    const child = await sdk.session.create({ body: { parentID: session.id } });
    expect(child.response.status).toBe(400);
    expect(child.error).toMatchObject({ data: { message: expect.stringContaining(`parentID "${session.id}"`) } });

    // A start whose JSON is sent as a form (curl -d without a content type) is refused, not taken for a create.
    const sessionsBefore = (await sdk.session.list()).data!.length;
    const form = await fetch(`${server.base}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify({ prompt: 'hi' }),
    });
    expect(form.status).toBe(415);
    expect((await sdk.session.list()).data!.length).toBe(sessionsBefore);

    // With throwOnError, the SDK's Error carries the server's words.
    await expect(sdk.session.messages({ path: { id: 'ses_missing' }, throwOnError: true })).rejects.toThrow(
      /Unknown session "ses_missing"/,
    );
  }, 30_000);

  it('accepts HTTP Basic with the token as password', async () => {
    const guarded = await startTestServer(env, { token: 'sekrit' });
    try {
      const basic = createOpencodeClient({
        baseUrl: guarded.base,
        headers: { Authorization: `Basic ${Buffer.from('opencode:sekrit').toString('base64')}` },
      });
      expect((await basic.session.list()).response.status).toBe(200);
      const wrong = createOpencodeClient({
        baseUrl: guarded.base,
        headers: { Authorization: `Basic ${Buffer.from('opencode:guess').toString('base64')}` },
      });
      const refused = await wrong.session.list();
      expect(refused.response.status).toBe(401);
    } finally {
      await guarded.close();
    }
  }, 30_000);
});
