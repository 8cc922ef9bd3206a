import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, SCRIPTED_MODEL, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startTestServer, type TestServer } from '../../testkit/loom/serve-app.js';
import { processesRunning, waitFor } from '../../testkit/wait.js';

let env: LoomTestEnv;
let server: TestServer | undefined;

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'README.md': '# Timeouts\n' } });
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

describe('loom run --timeout', () => {
  it('cancels a run that takes too long and says how to continue it', async () => {
    env.model.setScript([
      {
        name: 'hang',
        when: { lastUser: 'Hang for a minute', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'sleep 63', description: 'Hang' } }] },
      },
    ]);
    const started = Date.now();
    // A bare number is seconds.
    const result = await env.loom(['run', '--timeout', '2', '--model', 'scripted/test-model', 'Hang for a minute']);
    expect(result.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(45_000);
    const sessionId = /Session (ses_\w+) timed out/.exec(result.stderr)?.[1];
    expect(sessionId, result.stderr).toBeDefined();
    expect(result.stderr).toContain(`timed out after 2 s (its --timeout of 2 s); its work so far is kept.`);
    expect(result.stderr).toContain(`Continue it with \`loom resume ${sessionId}\`.`);
    await waitFor(() => processesRunning('sleep 63').length === 0, 10_000);
    expect(await env.store.getSession(sessionId!)).toMatchObject({ status: 'failed' });

    // Its work is kept: the command it names, as written (here with a limit of its own), continues the session.
    env.model.setScript([
      { name: 'go on', when: { lastUser: /timed out before it finished/ }, reply: { text: 'Went on.' } },
    ]);
    const resumed = await env.loom(['resume', '--json', '--timeout', '1h30m', sessionId!]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`Continuing ${sessionId}, whose last run timed out`);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ sessionId, status: 'completed', text: 'Went on.' });
    const asked = env.model.requests.at(-1)!;
    expect(asked.rule).toBe('go on');
    expect(JSON.stringify(asked.messages)).toContain('Hang for a minute');
  }, 90_000);

  it.each(['abc', '5x', '0', '-5s', '500ms'])('refuses --timeout %s before anything starts', async (value) => {
    const before = env.model.requests.length;
    const result = await env.loom(['run', '--timeout', value, '--model', 'scripted/test-model', 'Never asked']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Invalid --timeout "${value}"`);
    expect(result.stderr).not.toContain('ses_');
    expect(env.model.requests.length).toBe(before);
  });
});

describe('loom serve: timeout on a run', () => {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${server!.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { id?: string; error?: string } };
  };

  it('refuses a timeout that is not a positive number of milliseconds, naming the field', async () => {
    server = await startTestServer(env);
    for (const timeout of ['5s', 0, -1, 1.5]) {
      const started = await post('/session', { prompt: 'hi', model: SCRIPTED_MODEL, timeout });
      expect(started.status).toBe(400);
      expect(started.body.error).toContain('timeout');
    }
    const prompted = await post('/session/ses_any/message', { prompt: 'hi', timeout: 'abc' });
    expect(prompted.status).toBe(400);
    expect(prompted.body.error).toContain('timeout');
    const batch = await post('/batch', {
      tasks: [{ description: 'One', prompt: 'hi', timeout: 0 }],
      taskTimeout: '1m',
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error).toContain('tasks.0.timeout');
    expect(batch.body.error).toContain('taskTimeout');
  });

  it('ends a run started with a timeout once it passes', async () => {
    await env.worker();
    env.model.setScript([
      {
        name: 'hang',
        when: { lastUser: 'Hang on the server', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'sleep 64', description: 'Hang' } }] },
      },
    ]);
    const started = await post('/session', { prompt: 'Hang on the server', model: SCRIPTED_MODEL, timeout: 2000 });
    expect(started.status).toBe(201);
    const id = started.body.id!;
    const ended = await env.client.workflow
      .getHandle(id)
      .result()
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect((ended as WorkflowFailedError).cause).toMatchObject({ type: 'RunTimedOut' });
    expect(await env.store.getSession(id)).toMatchObject({ status: 'failed' });
    await waitFor(() => processesRunning('sleep 64').length === 0, 10_000);
  }, 60_000);
});
