import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { closeMcpServers, mcpServerStates } from '../../activities/mcp/servers.js';
import { mcpToolHandler } from '../../activities/tools/mcp.js';
import { mcpToolName } from '../../core/tool-call/mcp.js';
import { toolFinder } from '../../core/tools/index.js';
import { startNpmRegistry } from '../../testkit/network/npm-registry.js';
import { createToolContext, type ToolTestContext } from '../../testkit/model/tool-context.js';

const SERVER = fileURLToPath(new URL('../fixtures/mcp/server.mjs', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'loom-mcp-'));
const config = { mcp: { local: { type: 'local' as const, command: ['node', SERVER] } } };
const contexts: ToolTestContext[] = [];
const context = () => {
  const created = createToolContext(directory, { config });
  contexts.push(created);
  return created;
};

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((created) => created.close()));
});
afterAll(() => closeMcpServers());

describe('MCP tool calls', () => {
  it('turns text and images into output and attachments, and a result marked as an error into the call error', async () => {
    const pixel = await mcpToolHandler({ server: 'local', tool: 'pixel' })({}, context());
    expect(pixel).toMatchObject({
      title: 'pixel',
      output: 'one red pixel',
      attachments: [{ mime: 'image/png', url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) }],
    });
    await expect(mcpToolHandler({ server: 'local', tool: 'fail' })({}, context())).rejects.toThrow(
      'the widget is broken',
    );
  });

  it('says which server is missing from the config, and which is disabled', async () => {
    await expect(mcpToolHandler({ server: 'gone', tool: 'echo' })({}, context())).rejects.toThrow(
      'MCP server "gone" is not configured in this project any more',
    );
    const disabled = createToolContext(directory, {
      config: { mcp: { local: { ...config.mcp.local, enabled: false } } },
    });
    contexts.push(disabled);
    await expect(mcpToolHandler({ server: 'local', tool: 'echo' })({}, disabled)).rejects.toThrow(
      'MCP server "local" is disabled',
    );
  });

  it('checks the arguments against the server schema, and names tools as OpenCode does', async () => {
    const [state] = await mcpServerStates(config.mcp, { directory, env: process.env, config });
    const find = toolFinder(state.tools);
    const add = find('local_add')!;
    expect(add.parameters.safeParse({ a: 1, b: 2 }).success).toBe(true);
    expect(add.parameters.safeParse({ a: 'one', b: 2 }).success).toBe(false);
    expect(find('read')?.name).toBe('read');
    expect(mcpToolName('my.server', 'get issue')).toBe('my_server_get_issue');
  });

  it('does not offer a tool whose name model APIs would refuse, and says so', async () => {
    const long = 'x'.repeat(60);
    const [state] = await mcpServerStates({ [long]: config.mcp.local }, { directory, env: process.env, config });
    expect(state.tools.map((tool) => tool.tool)).toEqual(['add']);
    expect(state.skipped).toEqual(
      expect.arrayContaining([
        `${long}_echo (longer than 64 characters)`,
        `${long}_whoami (longer than 64 characters)`,
      ]),
    );
  });
});

describe('local servers configured the common ways, in the default sandbox', () => {
  it("sees a server's script in the host's /tmp, though the sandbox's /tmp is its own", async () => {
    const folder = mkdtempSync('/tmp/loom-mcp-script-');
    writeFileSync(
      join(folder, 'server.mjs'),
      `import { serveStdio } from '${pathToFileURL(SERVER).href}';\nawait serveStdio();\n`,
    );
    try {
      const servers = { script: { type: 'local' as const, command: ['node', join(folder, 'server.mjs')] } };
      const [state] = await mcpServerStates(servers, { directory, env: process.env, config: { mcp: servers } });
      expect(state).toMatchObject({ status: 'connected' });
      expect(state.tools.map((tool) => tool.tool)).toContain('echo');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('says what the sandbox refused a server, and the exact entry that allows it', async () => {
    const outside = mkdtempSync('/var/tmp/loom-mcp-out-');
    const write = `require('fs').writeFileSync('${outside}/out.txt', 'x')`;
    const servers = { writer: { type: 'local' as const, command: ['node', '-e', write] } };
    try {
      const [state] = await mcpServerStates(servers, { directory, env: process.env, config: { mcp: servers } });
      expect(state).toMatchObject({ status: 'failed' });
      expect(state.stderr).toContain(
        `Loom's sandbox refused the server: ${outside}/out.txt is read-only in the sandbox`,
      );
      expect(state.stderr).toContain(
        `To allow it, add to loom.json: "mcp": {"writer": {"sandbox": {"write":["${outside}"]}}}`,
      );
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('gives an npx server its registry and a package cache of its own, and says when the registry has no such package', async () => {
    const registry = await startNpmRegistry(
      'loom-fake-mcp',
      `import { serveStdio } from '${pathToFileURL(SERVER).href}';\nawait serveStdio();`,
    );
    const cache = mkdtempSync(join(tmpdir(), 'loom-cache-'));
    const env = { ...process.env, npm_config_registry: registry.url, LOOM_CACHE_DIR: cache };
    const npx = (name: string) => ({ type: 'local' as const, command: ['npx', '-y', name], timeout: 60_000 });
    const servers = { fake: npx('loom-fake-mcp'), missing: npx('loom-missing-mcp') };
    try {
      const [fake, missing] = await mcpServerStates(servers, { directory, env, config: { mcp: servers } });
      expect(fake).toMatchObject({ status: 'connected' });
      expect(fake.tools.map((tool) => tool.tool)).toContain('echo');
      expect(readdirSync(join(cache, 'mcp', 'npx'))).toHaveLength(2);
      expect(missing).toMatchObject({ status: 'failed' });
      expect(missing.stderr).toMatch(/npm error 404/);
      expect(missing.stderr).toContain(
        `npx could not fetch the server's package (npm error code E404); the sandbox lets it reach ${registry.host}`,
      );
      expect(missing.stderr).not.toContain('hidden');
    } finally {
      await closeMcpServers();
      await registry.close();
      rmSync(cache, { recursive: true, force: true });
    }
  }, 120_000);
});
