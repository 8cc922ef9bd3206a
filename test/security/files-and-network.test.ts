// Probes of the permission system for file tools and fetches: links that lead out of the project,
// secret files reached through other tools, and addresses on the local network. Each case states
// the verdict a call gets under the default rules (or the rules given), computed the way a run
// computes it: the spec's requests refined where I/O is allowed, then decided against the rules.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionsOf as refine } from '../../activities/permissions/index.js';
import { localAddressOf } from '../../activities/permissions/local-network.js';
import { grep } from '../../activities/tools/grep.js';
import { read } from '../../activities/tools/read.js';
import { ExternalDirectoryError, ToolError } from '../../activities/tools/running/tool-handler.js';
import { webfetch } from '../../activities/tools/webfetch.js';
import { createUserMessageActivities } from '../../activities/session/user-message-activities.js';
import { write } from '../../activities/tools/write.js';
import { DEFAULT_PERMISSION } from '../../core/agents/builtin.js';
import { newId } from '../../core/records/ids.js';
import { decide, fromConfig, type PermissionConfig, type Ruleset } from '../../core/rules/permission.js';
import { permissionsOf as specPermissions } from '../../core/tool-call/permissions.js';
import { findTool } from '../../core/tools/index.js';
import { createToolContext, type ToolTestContext } from '../../testkit/model/tool-context.js';

let root: string;
let project: string;
let outside: string;
let context: ToolTestContext;
let server: Server;
let base: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'loom-security-'));
  project = join(root, 'project');
  outside = join(root, 'elsewhere');
  mkdirSync(project);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'API_TOKEN=outside-secret\n');
  writeFileSync(join(outside, '.env'), 'API_TOKEN=linked-env-secret\n');
  writeFileSync(join(project, '.env'), 'API_TOKEN=project-env-secret\n');
  writeFileSync(join(project, 'notes.md'), 'API_TOKEN is documented here\n');
  symlinkSync(join(outside, 'secret.txt'), join(project, 'link.txt'));
  symlinkSync(outside, join(project, 'linked-folder'));
  symlinkSync(join(outside, 'not-yet.txt'), join(project, 'dangling.txt'));
  symlinkSync(join(project, 'link.txt'), join(project, 'link-to-link.txt'));
  symlinkSync(join(outside, '.env'), join(project, 'settings.txt'));
  context = createToolContext(project);
  server = createServer((request, response) => {
    if (request.url === '/to-other-local')
      response.writeHead(302, { location: `http://localhost:${port(server)}/page` }).end();
    else response.writeHead(200, { 'content-type': 'text/plain' }).end('local service says hi');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${port(server)}`;
});

afterAll(async () => {
  await context?.close();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

const port = (s: Server) => (s.address() as { port: number }).port;
const defaults = fromConfig(DEFAULT_PERMISSION);

/** The verdict a call gets: every request it needs decided against the rules, the strictest wins. */
async function verdict(
  tool: string,
  input: Record<string, unknown>,
  rules: Ruleset = defaults,
): Promise<'allow' | 'ask' | 'deny'> {
  const spec = findTool(tool)!;
  const parsed = spec.parameters.parse(input) as Record<string, unknown>;
  const requests = await refine(tool, parsed, specPermissions(spec, parsed, { directory: project }), {
    directory: project,
  });
  const actions = requests.map((request) => decide(request, rules).action);
  return actions.includes('deny') ? 'deny' : actions.includes('ask') ? 'ask' : 'allow';
}

const rules = (config: PermissionConfig) => [...defaults, ...fromConfig(config)];

describe('links that lead out of the project', () => {
  it('a file read in the project is allowed; the same through a link to a file outside asks', async () => {
    expect(await verdict('read', { filePath: 'notes.md' })).toBe('allow');
    expect(await verdict('read', { filePath: 'link.txt' })).toBe('ask');
    expect(await verdict('read', { filePath: 'link-to-link.txt' })).toBe('ask');
  });

  it('writes and edits through a linked folder or a dangling link ask', async () => {
    expect(await verdict('write', { filePath: 'new.txt', content: 'x' })).toBe('allow');
    expect(await verdict('write', { filePath: 'linked-folder/new.txt', content: 'x' })).toBe('ask');
    expect(await verdict('write', { filePath: 'dangling.txt', content: 'x' })).toBe('ask');
    expect(await verdict('edit', { filePath: 'link.txt', oldString: 'a', newString: 'b' })).toBe('ask');
  });

  it('searches and listings of a linked folder ask', async () => {
    expect(await verdict('grep', { pattern: 'TOKEN', path: 'linked-folder' })).toBe('ask');
    expect(await verdict('glob', { pattern: '*', path: 'linked-folder' })).toBe('ask');
    expect(await verdict('list', { path: 'linked-folder' })).toBe('ask');
  });

  it('a folder read asks for that folder, not its parent, and the project folder is inside', async () => {
    const requests = async (filePath: string) => {
      const spec = findTool('read')!;
      const input = spec.parameters.parse({ filePath }) as Record<string, unknown>;
      return refine('read', input, specPermissions(spec, input, { directory: project }), { directory: project });
    };
    expect(await verdict('read', { filePath: '.' })).toBe('allow');
    expect(await verdict('read', { filePath: project })).toBe('allow');
    expect(
      (await requests('../elsewhere')).find((request) => request.permission === 'external_directory')?.patterns,
    ).toEqual([`${outside}/*`]);
    expect((await requests('..')).find((request) => request.permission === 'external_directory')?.patterns).toEqual([
      `${root}/*`,
    ]);
  });

  it('a deny on the outside folder denies the link too', async () => {
    expect(await verdict('read', { filePath: 'link.txt' }, rules({ external_directory: { '*': 'deny' } }))).toBe(
      'deny',
    );
  });

  it('the tools themselves refuse a link out of the project when the run did not grant it', async () => {
    await expect(read({ filePath: 'link.txt' }, context)).rejects.toBeInstanceOf(ExternalDirectoryError);
    await expect(write({ filePath: 'linked-folder/new.txt', content: 'x' }, context)).rejects.toBeInstanceOf(
      ExternalDirectoryError,
    );
    expect(() => readFileSync(join(outside, 'new.txt'))).toThrow();
  });

  it('a search of the project does not follow links out of it', async () => {
    const result = await grep({ pattern: 'outside-secret|linked-env-secret' }, context);
    expect(result.output).toBe('No files found');
  });
});

describe('secret files, whatever the tool', () => {
  it('reading .env asks, directly or through a link whose target is a .env file', async () => {
    expect(await verdict('read', { filePath: '.env' })).toBe('ask');
    expect(await verdict('read', { filePath: 'settings.txt' })).toBe('ask');
  });

  it('a search shows no line of a file the read rules protect, and says which it left out', async () => {
    const result = await grep({ pattern: 'API_TOKEN' }, { ...context, readRules: defaults });
    expect(result.output).toContain('notes.md');
    expect(result.output).not.toContain('project-env-secret');
    expect(result.output).toContain('Left out the lines of 1 file(s) that the read rules protect (.env)');
  });
});

describe('fetches of the local network', () => {
  it('asks for loopback, private, link-local and unique-local addresses, even under "webfetch": "allow"', async () => {
    for (const url of [
      `${base}/`,
      'http://localhost:9/',
      'http://[::1]:9/',
      'http://10.1.2.3/',
      'http://192.168.1.1/admin',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00::1]/',
      'http://0.0.0.0:9/',
    ]) {
      expect(await verdict('webfetch', { url }), url).toBe('ask');
    }
  });

  it('asks for a name that resolves to a local address', async () => {
    expect(await localAddressOf(`http://${hostname()}:9/`)).toMatch(/^127\./);
    expect(await verdict('webfetch', { url: `http://${hostname()}:9/` })).toBe('ask');
  });

  it('leaves public addresses to the rules, and lets only a rule naming the URL exactly allow a local one', async () => {
    expect(await verdict('webfetch', { url: 'http://93.184.216.34/' })).toBe('allow');
    expect(
      await verdict(
        'webfetch',
        { url: `${base}/status` },
        rules({ webfetch: { '*': 'allow', [`${base}/status`]: 'allow' } }),
      ),
    ).toBe('allow');
    expect(
      await verdict(
        'webfetch',
        { url: `${base}/status` },
        rules({ webfetch: { '*': 'allow', [`${base}/*`]: 'allow' } }),
      ),
    ).toBe('ask');
    expect(await verdict('webfetch', { url: `${base}/status` }, rules({ '*': 'allow' }))).toBe('ask');
  });

  it('the tool refuses a local address the run did not grant, and a redirect to another local origin', async () => {
    await expect(webfetch({ url: `${base}/`, format: 'text' }, context)).rejects.toThrow(
      /is on the local network \(127\.0\.0\.1\); fetching it needs the user's permission/,
    );
    const granted = { ...context, localNetworkAllowed: true };
    expect((await webfetch({ url: `${base}/`, format: 'text' }, granted)).output).toBe('local service says hi');
    const redirect = webfetch({ url: `${base}/to-other-local`, format: 'text' }, granted);
    await expect(redirect).rejects.toBeInstanceOf(ToolError);
    await expect(redirect).rejects.toThrow(/redirects to http:\/\/localhost:\d+\/page, which is on the local network/);
  });
});

describe('@file references in a prompt a model wrote', () => {
  async function promptParts(sessionId: string, parentID: string | undefined, text: string): Promise<string> {
    const now = Date.now();
    await context.store.saveSession({
      id: sessionId,
      parentID,
      title: 't',
      agent: 'general',
      model: 'scripted/test-model',
      directory: project,
      status: 'busy',
      time: { created: now, updated: now },
    });
    const { saveUserMessage } = createUserMessageActivities({
      store: context.store,
      env: { ...process.env, LOOM_CONFIG_CONTENT: '{}' },
      dataDir: context.dataDir,
    });
    const messageId = newId('msg', now, Math.random);
    await saveUserMessage({
      sessionId,
      messageId,
      agent: 'general',
      model: 'scripted/test-model',
      text,
      directory: project,
    });
    return JSON.stringify(await context.store.parts(messageId));
  }

  it("are not read in when they lead out of the project or to a protected file: a subagent's prompt", async () => {
    const parts = await promptParts(
      'ses_child00000000000000000000',
      'ses_parent',
      'Look at @link.txt and @.env and @notes.md',
    );
    expect(parts).not.toContain('outside-secret');
    expect(parts).not.toContain('project-env-secret');
    expect(parts).toContain('@link.txt was not read into this prompt: it is outside the project');
    expect(parts).toContain('@.env was not read into this prompt: the read rules protect it');
    expect(parts).toContain('API_TOKEN is documented here');
  });

  it("are read in as before in a person's own prompt", async () => {
    const parts = await promptParts('ses_root000000000000000000000', undefined, 'Look at @link.txt');
    expect(parts).toContain('outside-secret');
  });
});
