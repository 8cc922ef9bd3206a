import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { stopProcess } from '../../testkit/loom/worker-process.js';
import { waitFor } from '../../testkit/wait.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({ config: { model: 'scripted/test-model' } });
  env.model.setScript([
    { name: 'hello', when: { lastUser: 'Say hello' }, reply: { text: 'Hello from Loom.' } },
    {
      name: 'slow',
      when: { lastUser: 'Count slowly' },
      reply: { text: 'one two three four', chunkSize: 4, chunkDelayMs: 400 },
    },
  ]);
});
afterAll(() => env?.close());

interface WireMessage {
  jsonrpc: string;
  id?: number | string | null;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string };
}

it('speaks JSON-RPC line by line as an editor writes it: bad lines and unknown methods get errors, never a crash', async () => {
  // Worker logs at INFO: they must not reach stdout, which is the protocol's.
  const { child, result } = env.spawnLoom(['acp'], {
    env: { LOOM_LOG_LEVEL: 'INFO' },
    keepStdinOpen: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = (): WireMessage[] =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as WireMessage);
  const send = (message: object | string) =>
    child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const answer = async (id: number) => {
    await waitFor(() => lines().some((m) => m.id === id), 60_000);
    return lines().find((m) => m.id === id)!;
  };
  try {
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false } } },
    });
    expect((await answer(1)).result).toMatchObject({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
      },
      authMethods: [],
      agentInfo: { name: 'loom' },
    });

    send('{"jsonrpc":"2.0","id":2,"method":"session/new",');
    send({ id: 3, method: 'session/frobnicate', params: {} });
    expect((await answer(3)).error).toMatchObject({
      code: -32601,
      message: expect.stringContaining('session/frobnicate'),
    });
    await waitFor(() => stderr.includes('not JSON'), 5_000);
    expect(stderr).toContain('loom acp: skipped a line of input that is not JSON: {"jsonrpc":"2.0","id":2');

    send({
      id: 4,
      method: 'session/prompt',
      params: { sessionId: 'ses_gone', prompt: [{ type: 'text', text: 'hi' }] },
    });
    expect((await answer(4)).error).toMatchObject({ message: expect.stringContaining('Unknown session "ses_gone"') });

    send({ id: 5, method: 'session/new', params: { cwd: 'relative/dir', mcpServers: [] } });
    expect((await answer(5)).error?.message).toContain('cwd "relative/dir" is not an absolute path');
    send({ id: 6, method: 'session/new', params: { cwd: `${env.project}/missing`, mcpServers: [] } });
    expect((await answer(6)).error?.message).toContain(`cwd "${env.project}/missing" does not exist`);

    send({ id: 7, method: 'session/new', params: { cwd: env.project, mcpServers: [] } });
    const { sessionId } = (await answer(7)).result as { sessionId: string };
    expect(sessionId).toMatch(/^ses_/);
    send({ id: 8, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Say hello' }] } });
    expect((await answer(8)).result).toEqual({ stopReason: 'end_turn' });
    const chunks = lines()
      .filter((m) => m.method === 'session/update' && m.params.update.sessionUpdate === 'agent_message_chunk')
      .map((m) => m.params.update.content.text as string);
    expect(chunks.join('')).toBe('Hello from Loom.');
    expect((await env.store.getSession(sessionId))?.status).toBe('idle');

    // The editor goes mid-turn: this process runs the only worker, so it stays until the turn ends.
    send({ id: 9, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'Count slowly' }] } });
    await waitFor(() => stdout.includes('"agent_message_chunk","content":{"type":"text","text":"one '), 30_000);
  } finally {
    child.stdin.end();
  }
  const ended = await Promise.race([result, new Promise((resolve) => setTimeout(resolve, 30_000, undefined))]);
  if (!ended) await stopProcess(child, 'SIGKILL');
  expect(ended).toMatchObject({ code: 0 });
  expect(stderr).toMatch(
    /loom acp: the editor has gone while ses_\w+ ran; this process keeps its worker until they end/,
  );
  const session = (await env.store.listSessions()).find((s) => s.status !== 'idle');
  expect(session).toBeUndefined();
  const messages = await env.store.messages((await env.store.listSessions())[0].id);
  expect(messages.at(-1)!.parts).toContainEqual(expect.objectContaining({ type: 'text', text: 'one two three four' }));
  // Every line on stdout was JSON-RPC; the logs went to stderr.
  for (const line of stdout.split('\n').filter(Boolean)) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  expect(stderr).toContain('[temporal info] Worker state changed');
}, 90_000);
