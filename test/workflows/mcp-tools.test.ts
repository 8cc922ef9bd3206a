import { defaultPayloadConverter } from '@temporalio/common';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeMcpServers } from '../../activities/mcp/servers.js';
import { startHttpServer } from '../fixtures/mcp/server.mjs';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import type { RecordedRequest } from '../../testkit/model/scripted-model-script.js';
import { toolParts } from '../../testkit/model/tool-results.js';

const SERVER = fileURLToPath(new URL('../fixtures/mcp/server.mjs', import.meta.url));
const TOKEN = 'mcp-test-token';

let env: LoomTestEnv;
let http: Awaited<ReturnType<typeof startHttpServer>>;

beforeAll(async () => {
  http = await startHttpServer({ token: TOKEN });
  env = await createLoomTestEnv({
    files: { 'tools/.keep': '' },
    config: {
      mcp: {
        local: {
          type: 'local',
          command: ['node', SERVER],
          environment: { MCP_GREETING: 'hello from config' },
          cwd: 'tools',
        },
        remote: { type: 'remote', url: http.url, headers: { Authorization: `Bearer ${TOKEN}` } },
        broken: { type: 'local', command: ['node', SERVER, '--fail-at-start'] },
        off: { type: 'local', command: ['node', SERVER], enabled: false },
      },
      permission: { remote_whoami: 'deny', 'remote_c*': 'deny' },
    },
  });
  await env.worker({ env: { ...env.env, OPENAI_API_KEY: 'sk-secret-of-the-worker' } });
});
afterAll(async () => {
  await env?.close();
  await closeMcpServers();
  await http?.close();
});

const toolResult = (request: RecordedRequest, id: string) =>
  String(request.messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content);

describe('MCP tools in a session', () => {
  it("offers each server's tools as <server>_<tool> with its schema, and runs calls over stdio and streamable HTTP", async () => {
    env.model.setScript([
      {
        name: 'call',
        when: { lastUser: 'Use the servers', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'local_echo', args: { text: 'over stdio' }, id: 'call_echo' },
            { name: 'remote_add', args: { a: 2, b: 40 }, id: 'call_add' },
            { name: 'local_fail', args: {}, id: 'call_fail' },
            { name: 'local_add', args: { a: 'two' }, id: 'call_invalid' },
            { name: 'local_whoami', args: {}, id: 'call_whoami' },
          ],
        },
      },
      {
        name: 'done',
        when: { lastUser: 'Use the servers', lastRole: 'tool' },
        reply: { text: 'Both servers answered.' },
      },
    ]);
    const { sessionId, result } = await env.start('Use the servers');
    expect(await result()).toMatchObject({ text: 'Both servers answered.' });

    const first = env.model.requests.find((request) => request.rule === 'call')!;
    expect(first.toolNames).toEqual(
      expect.arrayContaining(['local_echo', 'local_add', 'local_pixel', 'remote_echo', 'remote_add', 'read', 'bash']),
    );
    // Denied by a rule: not offered. A server that failed or is disabled: no tools, and the run goes on.
    expect(first.toolNames).not.toContain('remote_whoami');
    expect(first.toolNames).not.toContain('remote_crash');
    expect(first.toolNames.filter((name) => name.startsWith('broken_') || name.startsWith('off_'))).toEqual([]);
    const echo = first.body.tools.find((tool: any) => tool.function.name === 'local_echo').function;
    expect(echo.description).toBe('Echoes the text back');
    expect(echo.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string', description: 'What to echo' } },
      required: ['text'],
    });

    const done = env.model.requests.find((request) => request.rule === 'done')!;
    expect(toolResult(done, 'call_echo')).toBe('echo: over stdio');
    expect(toolResult(done, 'call_add')).toBe('42');
    expect(toolResult(done, 'call_fail')).toContain('the widget is broken');
    expect(toolResult(done, 'call_invalid')).toContain('The arguments provided to the tool "local_add" are invalid');
    // The server runs in its cwd, with its `environment`, and without the worker's credentials.
    const whoami = JSON.parse(toolResult(done, 'call_whoami'));
    expect(whoami).toMatchObject({ greeting: 'hello from config', secret: null });
    expect(whoami.cwd).toBe(`${env.project}/tools`);

    const parts = await toolParts(env.store, sessionId);
    expect(parts.map((part) => `${part.tool}:${part.state.status}`)).toEqual([
      'local_echo:completed',
      'remote_add:completed',
      'local_fail:error',
      'local_add:error',
      'local_whoami:completed',
    ]);
    // Read-only and idempotent tools are retried activities; one without hints runs at most once.
    const history = await env.client.workflow.getHandle(sessionId).fetchHistory();
    const scheduled = (history.events ?? []).flatMap((event) =>
      event.activityTaskScheduledEventAttributes && event.userMetadata?.summary
        ? [
            [
              defaultPayloadConverter.fromPayload<string>(event.userMetadata.summary as never),
              event.activityTaskScheduledEventAttributes.retryPolicy?.maximumAttempts,
            ],
          ]
        : [],
    );
    expect(scheduled).toEqual(
      expect.arrayContaining([
        ['local_echo · over stdio', 3],
        ['remote_add', 3],
        ['local_whoami', 1],
      ]),
    );
    await env.checkReplay(sessionId, 'mcp-tools');
  }, 60_000);

  it('tells the model when a denied MCP tool is called, and restarts a server that died', async () => {
    env.model.setScript([
      {
        name: 'denied',
        when: { lastUser: 'Crash it', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'remote_whoami', args: {}, id: 'call_denied' },
            { name: 'local_whoami', args: {}, id: 'call_before' },
          ],
        },
      },
      {
        name: 'crash',
        when: {
          lastUser: 'Crash it',
          lastTool: /pid/,
          test: (r) => !r.messages.some((m) => m.tool_call_id === 'call_crash'),
        },
        reply: { toolCalls: [{ name: 'local_crash', args: {}, id: 'call_crash' }] },
      },
      {
        name: 'again',
        when: { lastUser: 'Crash it', test: (r) => r.messages.at(-1)?.tool_call_id === 'call_crash' },
        reply: { toolCalls: [{ name: 'local_whoami', args: {}, id: 'call_after' }] },
      },
      {
        name: 'done',
        when: { lastUser: 'Crash it', test: (r) => r.messages.at(-1)?.tool_call_id === 'call_after' },
        reply: { text: 'It came back.' },
      },
    ]);
    const { result } = await env.start('Crash it');
    expect(await result()).toMatchObject({ text: 'It came back.' });
    const again = env.model.requests.findLast((request) => request.rule === 'again')!;
    expect(toolResult(again, 'call_denied')).toContain('remote_whoami');
    expect(toolResult(again, 'call_crash')).toContain(
      'MCP server "local" stopped during the call; it is started again for the next one.',
    );
    const done = env.model.requests.findLast((request) => request.rule === 'done')!;
    const before = JSON.parse(toolResult(again, 'call_before')).instance;
    const after = JSON.parse(toolResult(done, 'call_after')).instance;
    expect(after).not.toBe(before);
  }, 60_000);
});
