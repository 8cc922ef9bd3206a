import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { closeMcpServers, mcpServerStates } from '../../activities/mcp/servers.js';
import { mcpToolHandler } from '../../activities/tools/mcp.js';
import { mcpToolName } from '../../core/mcp.js';
import { toolFinder } from '../../core/tools/index.js';
import { createToolContext, type ToolTestContext } from '../../testkit/tool-context.js';

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
