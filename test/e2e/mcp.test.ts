import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../fixtures/mcp/server.mjs';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson } from '../../testkit/loom/run-loom.js';

const SERVER = fileURLToPath(new URL('../fixtures/mcp/server.mjs', import.meta.url));

let env: LoomTestEnv;
let http: Awaited<ReturnType<typeof startHttpServer>>;

beforeAll(async () => {
  http = await startHttpServer();
  const mcp = {
    files: { type: 'local', command: ['node', SERVER] },
    web: { type: 'remote', url: http.url },
    broken: { type: 'local', command: ['node', SERVER, '--fail-at-start'] },
    off: { type: 'remote', url: 'http://127.0.0.1:9/mcp', enabled: false },
  };
  env = await createLoomTestEnv({
    files: {
      'opencode.json': JSON.stringify({ mcp }),
      'bad/loom.json': JSON.stringify({ mcp: { files: { type: 'local', command: `node ${SERVER}` } } }),
    },
  });
});
afterAll(async () => {
  await env?.close();
  await http?.close();
});

describe('MCP servers through the CLI', () => {
  it('loom run offers the tools of the servers that started, runs a call, and names the server that failed with its stderr', async () => {
    env.model.setScript([
      {
        name: 'call',
        when: { lastUser: 'Echo it', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'web_echo', args: { text: 'through loom run' } }] },
      },
      { name: 'done', when: { lastUser: 'Echo it', lastRole: 'tool' }, reply: { text: 'Echoed.' } },
    ]);
    const result = await env.loom(['run', '--json', '-m', 'scripted/test-model', 'Echo it']);
    expect(parseJson(result)).toMatchObject({ status: 'completed', text: 'Echoed.' });
    expect(result.stderr).toContain('MCP server "broken" failed to start');
    expect(result.stderr).toContain('fatal: cannot open the widget database');

    const call = env.model.requests.findLast((request) => request.rule === 'call')!;
    expect(call.toolNames).toEqual(expect.arrayContaining(['files_echo', 'files_pixel', 'web_echo', 'web_add']));
    const done = env.model.requests.findLast((request) => request.rule === 'done')!;
    expect(done.lastTool).toBe('echo: through loom run');

    const shown = parseJson(await env.loom(['show', parseJson(result).sessionId, '--json']));
    const part = shown.messages.flatMap((message: any) => message.parts).find((p: any) => p.type === 'tool');
    expect(part).toMatchObject({
      tool: 'web_echo',
      state: { status: 'completed', input: { text: 'through loom run' }, output: 'echo: through loom run' },
    });
  }, 120_000);

  it('loom mcp ls lists each server with its state and tools, names the failure, and exits 1 for it', async () => {
    const listed = await env.loom(['mcp', 'ls']);
    expect(listed.code).toBe(1);
    expect(listed.stdout).toMatch(/✓ files {2}local · connected · 6 tools/);
    expect(listed.stdout).toContain('files_echo  Echoes the text back (read-only)');
    expect(listed.stdout).toMatch(/✓ web {2}remote · connected · 6 tools/);
    expect(listed.stdout).toMatch(/✗ broken {2}local · failed/);
    expect(listed.stdout).toContain('stderr: fatal: cannot open the widget database');
    expect(listed.stdout).toMatch(/○ off {2}remote · disabled/);

    const json = parseJson(await env.loom(['mcp', 'ls', '--json']));
    expect(json.servers.map((server: any) => [server.name, server.status])).toEqual([
      ['files', 'connected'],
      ['web', 'connected'],
      ['broken', 'failed'],
      ['off', 'disabled'],
    ]);
    expect(json.servers[0].tools[0]).toMatchObject({
      name: 'files_echo',
      tool: 'echo',
      effect: 'read-only',
      inputSchema: { type: 'object' },
    });
  }, 60_000);

  it('a malformed mcp entry is an error naming the file and the key', async () => {
    const listed = await env.loom(['mcp', 'ls', '--dir', join(env.project, 'bad')]);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain(join(env.project, 'bad', 'loom.json'));
    expect(listed.stderr).toContain('mcp.files.command');
  });
});
