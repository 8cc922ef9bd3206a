import { MockActivityEnvironment } from '@temporalio/testing';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPermissionActivities } from '../../activities/permissions/permission-activities.js';
import { pluginChatParams } from '../../activities/plugins/chat-params.js';
import { followPluginEvents } from '../../activities/plugins/events.js';
import { pluginPermission, pluginPermissionVerdict } from '../../activities/plugins/permission-ask.js';
import { discoverPlugins, loadPlugins } from '../../activities/plugins/load.js';
import { readProjectConfig } from '../../activities/config/project-config.js';
import { trustProjectConfig } from '../../activities/config/trust.js';
import { PluginError } from '../../activities/plugins/types.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import { createToolActivities } from '../../activities/tools/running/run-tool-activities.js';
import type { Part, ToolPart } from '../../core/records/part.js';
import type { PermissionRequestRecord } from '../../core/rules/permission-request.js';
import type { ToolRunResult } from '../../core/tool-call/run.js';
import { write } from '../../testkit/files.js';

let root: string;
let store: SqliteSessionStore;
let dataDir: string;
let projects = 0;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'loom-plugins-')));
  dataDir = join(root, 'data');
  mkdirSync(dataDir);
  store = new SqliteSessionStore(join(dataDir, 'loom.db'));
});
afterAll(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

/** A fresh project (plugins are cached per directory) with `files`, and the env its worker has. */
function project(
  files: Record<string, string>,
  config: Record<string, unknown> = {},
): { directory: string; env: NodeJS.ProcessEnv } {
  const directory = join(root, `project-${++projects}`);
  mkdirSync(directory);
  for (const [path, content] of Object.entries(files)) write(join(directory, path), content);
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOOM_CONFIG_DIR: join(directory, '..', `global-${projects}`),
    LOOM_CONFIG_CONTENT: JSON.stringify(config),
  };
  return { directory, env };
}

/** The project's config files and plugin digests as its disk holds them: what a run would trust. */
const onDisk = (where: { directory: string; env: NodeJS.ProcessEnv }) =>
  readProjectConfig(where.directory, where.env).record;

/** A plugin module whose default export returns `hooks` (source text of an object). */
const plugin = (hooks: string) => `export default async () => (${hooks});\n`;

async function errorOf(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

/** Runs one call of `tool` through the `runTool` activity, as the workflow would, and returns its part. */
async function runCall(
  where: { directory: string; env: NodeJS.ProcessEnv },
  tool: string,
  input: Record<string, unknown>,
) {
  const n = Math.random().toString(36).slice(2);
  const part: ToolPart = {
    id: `prt_${n}`,
    sessionID: 'ses_plugins',
    messageID: 'msg_plugins',
    type: 'tool',
    callID: `call_${n}`,
    tool,
    state: { status: 'pending', input, raw: JSON.stringify(input) },
  };
  await store.savePart(part);
  const { runTool } = createToolActivities({ store, env: where.env, dataDir });
  const result: ToolRunResult = await new MockActivityEnvironment().run(() =>
    runTool({
      sessionId: 'ses_plugins',
      messageId: 'msg_plugins',
      partId: part.id,
      callId: part.callID,
      tool,
      directory: where.directory,
      model: 'scripted/test-model',
      canDelegate: false,
    }),
  );
  const stored = (await store.getPart(part.id)) as ToolPart;
  return { result, state: stored.state as Record<string, unknown> & { status: string } };
}

describe('loading plugins', () => {
  it('finds modules in plugin folders and the plugin key, in order, and initialises each once per directory', async () => {
    const where = project({
      '.opencode/plugin/a.ts': plugin('{}'),
      '.loom/plugins/b.mjs': plugin('{}'),
      '.loom/plugins/notes.md': 'not a plugin',
      'config/local.js': plugin('{}'),
      'config/loom.json': '{}',
      'node_modules/loom-plugin-demo/package.json': JSON.stringify({
        name: 'loom-plugin-demo',
        main: 'index.js',
        type: 'module',
      }),
      'node_modules/loom-plugin-demo/index.js': `export const Demo = async ({ directory, project, client }) => { globalThis.demoInits = (globalThis.demoInits ?? 0) + 1; globalThis.demoInput = { directory, project, client }; return {}; };\n`,
      'loom.json': JSON.stringify({ plugin: ['./config/local.js', 'loom-plugin-demo'] }),
    });
    write(join(where.env.LOOM_CONFIG_DIR!, 'plugins', 'global.js'), plugin('{}'));
    const { modules } = discoverPlugins(where.directory, where.env);
    expect(modules.map((module) => module.label)).toEqual([
      `${join(where.directory, 'loom.json')}: plugin[0] "./config/local.js"`,
      `${join(where.directory, 'loom.json')}: plugin[1] "loom-plugin-demo"`,
      join(where.env.LOOM_CONFIG_DIR!, 'plugins', 'global.js'),
      '.opencode/plugin/a.ts',
      '.loom/plugins/b.mjs',
    ]);
    const first = await loadPlugins(where.directory, where.env, onDisk(where));
    expect(first.list).toHaveLength(5);
    expect(first.timeoutMs).toBe(10_000);
    expect(await loadPlugins(where.directory, where.env, onDisk(where))).toBe(first);
    const g = globalThis as { demoInits?: number; demoInput?: unknown };
    expect(g.demoInits).toBe(1);
    expect(g.demoInput).toEqual({ directory: where.directory, project: { id: where.directory }, client: undefined });
  });

  it('loads a module again when its file changes', async () => {
    const where = project({
      '.loom/plugins/v.ts': `export default async () => ({ 'shell.env': async (_input, output) => { output.env.V = '1'; } });\n`,
    });
    const first = await loadPlugins(where.directory, where.env, onDisk(where));
    write(
      join(where.directory, '.loom/plugins/v.ts'),
      `export default async () => ({ 'shell.env': async (_input, output) => { output.env.V = '2'; } });\n`,
    );
    utimesSync(join(where.directory, '.loom/plugins/v.ts'), new Date(), new Date(Date.now() + 5_000));
    const second = await loadPlugins(where.directory, where.env, onDisk(where));
    expect(second).not.toBe(first);
    const output = { env: {} as Record<string, string> };
    await second.list[0].hooks['shell.env']!({ cwd: where.directory }, output);
    expect(output.env).toEqual({ V: '2' });
  });

  it('names the file, export or key of a malformed plugin', async () => {
    const cases: [Record<string, string>, string][] = [
      [
        { '.loom/plugins/broken.ts': 'export default async () => ({ ;\n' },
        '.loom/plugins/broken.ts: cannot be imported',
      ],
      [
        { '.loom/plugins/value.js': 'export const Answer = 42;\n' },
        '.loom/plugins/value.js (export Answer): expected a plugin function',
      ],
      [
        { '.loom/plugins/throws.js': 'export default async () => { throw new Error("no licence"); };\n' },
        '.loom/plugins/throws.js: initialiser threw: no licence',
      ],
      [
        { '.loom/plugins/hook.js': plugin(`{ 'tool.execute.before': 'yes' }`) },
        '.loom/plugins/hook.js: hook "tool.execute.before" is not a function',
      ],
    ];
    for (const [files, message] of cases) {
      const where = project(files);
      const error = await errorOf(loadPlugins(where.directory, where.env, onDisk(where)));
      expect(error).toBeInstanceOf(PluginError);
      expect(error.message).toContain(message);
    }
    const missing = project({ 'loom.json': JSON.stringify({ plugin: ['./nowhere.ts', 'not-installed-plugin'] }) });
    expect((await errorOf(loadPlugins(missing.directory, missing.env, onDisk(missing)))).message).toContain(
      `${join(missing.directory, 'loom.json')}: plugin[0] "./nowhere.ts": no such file`,
    );
    // A package OpenCode would have installed, which is not here: skipped (and named), the project still runs.
    const uninstalled = project({ 'loom.json': JSON.stringify({ plugin: ['not-installed-plugin'] }) });
    expect((await loadPlugins(uninstalled.directory, uninstalled.env, onDisk(uninstalled))).list).toEqual([]);
    expect(discoverPlugins(uninstalled.directory, uninstalled.env).skipped).toEqual([
      expect.stringContaining('plugin[0] "not-installed-plugin": package not installed'),
    ]);
  });

  it('fails an initialiser that hangs past plugin_timeout', async () => {
    const where = project(
      { '.loom/plugins/slow.js': 'export default () => new Promise(() => {});\n' },
      { plugin_timeout: 0.2 },
    );
    const started = Date.now();
    expect((await errorOf(loadPlugins(where.directory, where.env, onDisk(where)))).message).toBe(
      '.loom/plugins/slow.js: initialiser did not finish within 0.2 s',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('hooks around a tool call', () => {
  it('tool.execute.before rewrites the arguments the tool runs with and the part shows', async () => {
    const where = project({
      '.loom/plugins/rewrite.ts': plugin(
        `{ 'tool.execute.before': async (input, output) => { if (input.tool === 'bash') output.args.command = output.args.command.replace('hello', 'rewritten'); } }`,
      ),
    });
    const { result, state } = await runCall(where, 'bash', { command: 'echo hello', description: 'Say hello' });
    expect(result.status).toBe('completed');
    expect(state.input).toMatchObject({ command: 'echo rewritten' });
    expect(state.output).toContain('rewritten');
  });

  it('tool.execute.before blocks a call by throwing; the error names the plugin and the command does not run', async () => {
    const where = project({
      '.loom/plugins/guard.ts': plugin(
        `{ 'tool.execute.before': async (input, output) => { if (input.tool === 'bash' && /\\brm\\b/.test(output.args.command)) throw new Error('rm is not allowed here'); } }`,
      ),
      'keep.txt': 'kept',
    });
    const { result, state } = await runCall(where, 'bash', { command: 'rm keep.txt', description: 'Delete' });
    expect(result).toMatchObject({ status: 'error', preview: 'Plugin .loom/plugins/guard.ts: rm is not allowed here' });
    expect(state).toMatchObject({ status: 'error', error: 'Plugin .loom/plugins/guard.ts: rm is not allowed here' });
    expect((await runCall(where, 'read', { filePath: 'keep.txt' })).state.output).toContain('kept');
  });

  it('arguments a plugin made invalid fail the call', async () => {
    const where = project({
      '.loom/plugins/bad.js': plugin(
        `{ 'tool.execute.before': async (_input, output) => { output.args.filePath = 7; } }`,
      ),
      'a.txt': 'a',
    });
    const { state } = await runCall(where, 'read', { filePath: 'a.txt' });
    expect(state.status).toBe('error');
    expect(state.error).toMatch(
      /^Plugin \.loom\/plugins\/bad\.js: changed the arguments of read into invalid ones: filePath: /,
    );
  });

  it('tool.execute.after changes the output the model sees', async () => {
    const where = project({
      '.loom/plugins/after.js': plugin(
        `{ 'tool.execute.after': async (input, output) => { output.output = output.output.toUpperCase() + ' [' + input.tool + ' ' + input.args.filePath + ']'; output.title = 'checked'; } }`,
      ),
      'a.txt': 'quiet words\n',
    });
    const { result, state } = await runCall(where, 'read', { filePath: 'a.txt' });
    expect(result.title).toBe('checked');
    expect(state.output).toContain('QUIET WORDS');
    expect(state.output).toContain('[read a.txt]');
  });

  it('shell.env adds variables to bash, secret-looking names included', async () => {
    const where = project({
      '.loom/plugins/env.js': plugin(
        `{ 'shell.env': async (input, output) => { output.env.FROM_PLUGIN = 'cwd=' + input.cwd; output.env.DEPLOY_TOKEN = 'tok-123456789'; } }`,
      ),
    });
    const { state } = await runCall(where, 'bash', {
      command: 'echo "$FROM_PLUGIN $DEPLOY_TOKEN"',
      description: 'Show env',
    });
    expect(state.output).toContain(`cwd=${where.directory} tok-123456789`);
  });

  it('a hook that hangs fails the call naming the plugin and the hook', async () => {
    const where = project(
      { '.loom/plugins/hang.js': plugin(`{ 'tool.execute.before': () => new Promise(() => {}) }`), 'a.txt': 'a' },
      { plugin_timeout: 0.2 },
    );
    const { state } = await runCall(where, 'read', { filePath: 'a.txt' });
    expect(state).toMatchObject({
      status: 'error',
      error: 'Plugin .loom/plugins/hang.js: hook "tool.execute.before" did not finish within 0.2 s',
    });
  });

  it('a plugin that cannot load fails the call with its name', async () => {
    const where = project({ '.loom/plugins/broken.js': 'export default 1;\n', 'a.txt': 'a' });
    const { state } = await runCall(where, 'read', { filePath: 'a.txt' });
    expect(state.status).toBe('error');
    expect(state.error).toContain('.loom/plugins/broken.js: expected a plugin function');
  });
});

describe('chat.params', () => {
  const input = { sessionID: 'ses_1', agent: 'build', model: { id: 'm', providerID: 'p' }, provider: { id: 'p' } };

  it('lets plugins set sampling parameters and options, in load order', async () => {
    const where = project({
      '.opencode/plugins/one.js': plugin(
        `{ 'chat.params': async (input, output) => { output.temperature = 0.1; output.options.seen = input.agent; } }`,
      ),
      '.loom/plugins/two.js': plugin(
        `{ 'chat.params': async (_input, output) => { output.topK = 5; output.temperature += 0.2; } }`,
      ),
    });
    const params = await pluginChatParams(where.directory, where.env, onDisk(where), input, {
      temperature: 1,
      options: { keep: true },
    });
    expect(params.topK).toBe(5);
    expect(params.temperature).toBeCloseTo(0.3);
    expect(params.options).toEqual({ keep: true, seen: 'build' });
  });

  it('is skipped on a worker without the project directory', async () => {
    const params = { temperature: 1, options: {} };
    expect(
      await pluginChatParams(
        join(root, 'not-here'),
        { LOOM_CONFIG_DIR: join(root, 'none') },
        { files: {}, folders: {} },
        input,
        params,
      ),
    ).toBe(params);
  });
});

describe('permission.ask', () => {
  const request = (sessionID: string, patterns: string[]): PermissionRequestRecord => ({
    id: `per_${Math.random().toString(36).slice(2)}`,
    sessionID,
    rootID: sessionID,
    messageID: 'msg_ask',
    partID: 'prt_ask',
    callID: 'call_ask',
    tool: 'bash',
    agent: 'build',
    permission: 'bash',
    patterns,
    always: ['git *'],
    title: `bash · ${patterns.join(' ')}`,
    status: 'pending',
    time: { created: 1 },
  });
  const policy = plugin(`{ 'permission.ask': async (input, output) => {
    if (input.type !== 'bash') return;
    if (input.pattern.startsWith('git ')) output.status = 'allow';
    if (input.pattern.startsWith('curl ')) output.status = 'deny';
  } }`);

  /** A session of `directory`, whose first run trusted its config files (plugins come from what a person trusts). */
  async function sessionIn(directory: string, host?: string): Promise<string> {
    const id = `ses_ask_${Math.random().toString(36).slice(2)}`;
    await trustProjectConfig(store, directory, { LOOM_CONFIG_DIR: join(root, 'no-global') });
    await store.saveSession({
      id,
      title: 't',
      agent: 'build',
      model: 'scripted/test-model',
      directory,
      ...(host ? { host } : {}),
      status: 'busy',
      time: { created: 1, updated: 1 },
    });
    return id;
  }

  it('gets the request in OpenCode’s Permission shape', async () => {
    const seen = join(root, 'permission-seen.json');
    const where = project({
      '.loom/plugins/spy.js': plugin(
        `{ 'permission.ask': async (input) => { (await import('node:fs')).writeFileSync(${JSON.stringify(seen)}, JSON.stringify(input)); } }`,
      ),
    });
    const asked = request('ses_x', ['git status']);
    expect(await pluginPermissionVerdict(where.directory, where.env, onDisk(where), asked)).toBeUndefined();
    expect(JSON.parse(readFileSync(seen, 'utf8'))).toEqual({
      id: asked.id,
      type: 'bash',
      permission: 'bash',
      pattern: 'git status',
      patterns: ['git status'],
      always: ['git *'],
      sessionID: 'ses_x',
      messageID: 'msg_ask',
      callID: 'call_ask',
      title: 'bash · git status',
      metadata: { tool: 'bash', agent: 'build' },
      time: { created: 1 },
    });
    expect(pluginPermission(request('ses_x', ['a', 'b'])).pattern).toEqual(['a', 'b']);
  });

  it('stores a request a plugin allows or denies as answered, and one it leaves as pending', async () => {
    const where = project({ '.loom/plugins/policy.js': policy });
    const { savePermissionRequest } = createPermissionActivities({ store, env: where.env, dataDir });
    const sessionID = await sessionIn(where.directory);
    const allowed = request(sessionID, ['git status']);
    expect(await savePermissionRequest(allowed, { askPlugins: true })).toEqual({
      status: 'allow',
      plugin: '.loom/plugins/policy.js',
    });
    expect(await store.getPermissionRequest(allowed.id)).toMatchObject({
      status: 'approved',
      reply: { reply: 'once', message: 'Allowed by plugin .loom/plugins/policy.js (permission.ask)' },
    });
    const denied = request(sessionID, ['curl example.com']);
    expect(await savePermissionRequest(denied, { askPlugins: true })).toEqual({
      status: 'deny',
      plugin: '.loom/plugins/policy.js',
    });
    expect(await store.getPermissionRequest(denied.id)).toMatchObject({
      status: 'rejected',
      reply: { reply: 'reject' },
    });
    const asked = request(sessionID, ['npm publish']);
    expect(await savePermissionRequest(asked, { askPlugins: true })).toBeUndefined();
    expect(await store.getPermissionRequest(asked.id)).toMatchObject({ status: 'pending' });
    // Without the option (workflow code that ignores the answer), plugins are not asked.
    const old = request(sessionID, ['git log']);
    expect(await savePermissionRequest(old)).toBeUndefined();
    expect(await store.getPermissionRequest(old.id)).toMatchObject({ status: 'pending' });
  });

  it('asks a person when a plugin throws, hangs or answers nonsense, and on another host', async () => {
    const hang = project(
      { '.loom/plugins/hang.js': plugin(`{ 'permission.ask': () => new Promise(() => {}) }`) },
      { plugin_timeout: 0.2 },
    );
    const odd = project({
      '.loom/plugins/odd.js': plugin(`{ 'permission.ask': async (_input, output) => { output.status = 'yes'; } }`),
    });
    const throws = project({
      '.loom/plugins/a.js': plugin(`{ 'permission.ask': async (_input, output) => { output.status = 'allow'; } }`),
      '.loom/plugins/b.js': plugin(`{ 'permission.ask': async () => { throw new Error('no policy'); } }`),
    });
    for (const where of [hang, odd, throws]) {
      expect(
        await pluginPermissionVerdict(where.directory, where.env, onDisk(where), request('ses_x', ['git status'])),
      ).toBeUndefined();
    }
    const allowing = project({ '.loom/plugins/policy.js': policy });
    const { savePermissionRequest } = createPermissionActivities({ store, env: allowing.env, dataDir, hostId: 'here' });
    const elsewhere = request(await sessionIn(allowing.directory, 'elsewhere'), ['git status']);
    expect(await savePermissionRequest(elsewhere, { askPlugins: true })).toBeUndefined();
    expect(await store.getPermissionRequest(elsewhere.id)).toMatchObject({ status: 'pending' });
  });
});

describe('event', () => {
  it('sends the feed’s events from its start, once some plugin has an event hook, to the plugins of this host’s workspaces; a failing plugin does not stop them', async () => {
    const log = join(root, `events-${projects + 1}.log`);
    const where = project({
      '.loom/plugins/events.js': plugin(
        `{ event: async ({ event }) => { (await import('node:fs')).appendFileSync(${JSON.stringify(log)}, event.type + ' ' + (event.properties.info?.id ?? event.properties.part?.id ?? event.properties.request?.id ?? '') + '\\n'); } }`,
      ),
      '.loom/plugins/failing.js': plugin(`{ event: async () => { throw new Error('broken listener'); } }`),
    });
    const other = project({
      '.loom/plugins/events.js': plugin(`{ event: async () => { throw new Error('must not be called'); } }`),
    });
    const session = {
      title: 't',
      agent: 'build',
      model: 'scripted/test-model',
      status: 'busy' as const,
      time: { created: 1, updated: 1 },
    };
    await store.saveSession({ id: 'ses_ev_before', directory: where.directory, ...session });
    // Event hooks come from the config files a person trusts: the first run's, here.
    await trustProjectConfig(store, where.directory, where.env);
    await trustProjectConfig(store, other.directory, other.env);
    const follower = followPluginEvents({ store, env: where.env, hostId: 'here' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await store.saveSession({ id: 'ses_ev', directory: where.directory, host: 'here', ...session });
      await store.saveSession({ id: 'ses_ev_away', directory: other.directory, host: 'elsewhere', ...session });
      await store.savePart({
        id: 'prt_ev',
        sessionID: 'ses_ev',
        messageID: 'msg_ev',
        type: 'text',
        text: 'hi',
      } as Part);
      await store.savePermissionRequest({ ...request('ses_ev'), id: 'per_ev' });
      // A deleted session's event names its last state, so it still reaches its workspace's plugins.
      await store.saveSession({ id: 'ses_ev_gone', directory: where.directory, host: 'here', ...session });
      await store.removeSession('ses_ev_gone');
      // Idle until this process has loaded a plugin with an `event` hook (a tool call would); then
      // it catches up from its start.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(existsSync(log)).toBe(false);
      await loadPlugins(where.directory, where.env, onDisk(where));
      const expected = [
        'session.updated ses_ev',
        'message.part.updated prt_ev',
        'permission.asked per_ev',
        'session.deleted ses_ev_gone',
      ];
      let lines: string[] = [];
      for (let i = 0; i < 100 && lines.length < expected.length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
      }
      expect(lines).toEqual(expected);
    } finally {
      await follower.stop();
    }
  });

  function request(sessionID: string): PermissionRequestRecord {
    return {
      id: 'per_x',
      sessionID,
      rootID: sessionID,
      messageID: 'msg_ev',
      partID: 'prt_ev',
      callID: 'c',
      tool: 'bash',
      agent: 'build',
      permission: 'bash',
      patterns: ['ls'],
      always: ['ls *'],
      title: 'bash · ls',
      status: 'pending',
      time: { created: 1 },
    };
  }
});
