import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../activities/process/package-root.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson, runLoom, spawnLoom, type LoomResult } from '../../testkit/loom/run-loom.js';
import { freePort } from '../../testkit/network/free-port.js';
import { TerminalSession } from '../../testkit/terminal/terminal-session.js';
import { waitUntil } from '../../testkit/wait.js';
import { LOOM_BIN } from '../../testkit/loom/worker-process.js';

// What bin/loom.js runs from a build: the CLI bundled with its packages (scripts/cli-bundle.ts).
const BUILT = join(PACKAGE_ROOT, 'dist', 'cli', 'main.js');
const BIN = join(PACKAGE_ROOT, 'bin', 'loom.js');

let env: LoomTestEnv;

beforeAll(async () => {
  // The build the package ships: compiled code, the web view's files and the workflow bundle.
  execFileSync('npm', ['run', 'build'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  env = await createLoomTestEnv({ files: { 'README.md': '# Built\n' } });
}, 300_000);
afterAll(() => env?.close());

const run = (entry: string, args: string[]) =>
  runLoom(args, { entry, env: { ...env.env, NO_COLOR: '1' }, cwd: env.project });

describe('the built CLI (npm run build)', () => {
  it('dates the build from its start, so a source edited while it ran is newer than it', () => {
    const builtAt = statSync(join(PACKAGE_ROOT, 'dist', 'workflow-bundle.js')).mtimeMs;
    // tsc writes the compiled code first; the workflow bundle, the build's marker, is written last.
    expect(builtAt).toBeLessThanOrEqual(statSync(join(PACKAGE_ROOT, 'dist', 'client', 'main.js')).mtimeMs);
  });

  it('has the compiled code, the CLI bundle, the web view and the workflow bundle in dist/', () => {
    expect(existsSync(join(PACKAGE_ROOT, 'dist', 'client', 'main.js'))).toBe(true);
    expect(existsSync(BUILT)).toBe(true);
    expect(existsSync(join(PACKAGE_ROOT, 'dist', 'client', 'serve', 'web', 'index.html'))).toBe(true);
    expect(existsSync(join(PACKAGE_ROOT, 'dist', 'workflow-bundle.js'))).toBe(true);
  });

  it('runs a session from the compiled code, with the bundled workflows, and shows it', async () => {
    env.model.setScript([
      {
        name: 'look',
        when: { lastUser: 'Read the readme', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'README.md' } }] },
      },
      { name: 'answer', when: { lastUser: 'Read the readme', lastRole: 'tool' }, reply: { text: 'It says: Built.' } },
    ]);
    const result = await run(BUILT, ['run', '--json', '-m', 'scripted/test-model', 'Read the readme']);
    expect(parseJson(result)).toMatchObject({ status: 'completed', text: 'It says: Built.' });
    const shown = await run(BIN, ['show', parseJson(result).sessionId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('It says: Built.');
  }, 120_000);

  it('runs a session on the worker it starts itself, with the activities from the bundle', async () => {
    // No worker polls this queue: `loom run` starts one in its own process, from the bundle, whose
    // activities must share Temporal's activity context with the worker (a heartbeat, a tool).
    env.model.setScript([
      {
        name: 'look',
        when: { lastUser: 'Read it yourself', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'README.md' } }] },
      },
      { name: 'answer', when: { lastUser: 'Read it yourself', lastRole: 'tool' }, reply: { text: 'Read: Built.' } },
    ]);
    const result = await runLoom(['run', '--json', '-m', 'scripted/test-model', 'Read it yourself'], {
      entry: BUILT,
      env: { ...env.env, NO_COLOR: '1', LOOM_TASK_QUEUE: `${env.taskQueue}-built-own` },
      cwd: env.project,
    });
    expect(parseJson(result)).toMatchObject({ status: 'completed', text: 'Read: Built.' });
  }, 120_000);

  it('serves the web view and its libraries from the bundle', async () => {
    const port = await freePort();
    const { child, result } = spawnLoom(['serve', '--port', String(port), '--no-worker'], {
      entry: BUILT,
      env: { ...env.env, NO_COLOR: '1' },
      cwd: env.project,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await waitUntil(() => Promise.resolve(stderr.includes('Loom server and web view on')), 60_000);
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      const library = await fetch(`http://127.0.0.1:${port}/web/lib/preact.js`);
      expect(library.status).toBe(200);
      expect(library.headers.get('content-type')).toContain('text/javascript');
    } finally {
      child.kill('SIGTERM');
    }
    expect((await result).code, stderr).toBe(0);
  }, 90_000);

  it('draws the terminal UI from the bundle (Ink, React and yoga-layout in it), which sends a prompt and shows the answer', async () => {
    env.model.setScript([
      {
        name: 'greet',
        when: { lastUser: 'Greet the build', lastRole: 'user' },
        reply: { text: 'Greetings from the bundle.' },
      },
    ]);
    const terminal = await TerminalSession.start({
      command: [process.execPath, BUILT, 'tui'],
      cwd: env.project,
      // No NODE_ENV, as a person runs it (the bundle is React's production build whatever it says),
      // and DEV=true, which in Ink turns on React DevTools, which the bundle leaves out.
      env: { ...env.env, NODE_ENV: undefined, DEV: 'true', LOOM_MODEL: 'scripted/test-model' },
      columns: 120,
      rows: 40,
    });
    try {
      await terminal.waitFor('Ask anything', { timeoutMs: 30_000 });
      await terminal.type('Greet the build');
      await terminal.press('Enter');
      await terminal.waitFor('Greetings from the bundle.', { timeoutMs: 60_000 });
    } finally {
      await terminal.close();
    }
  }, 120_000);

  it('the bin prints the version and its help lists every command', async () => {
    const help = await run(BIN, ['--help']);
    expect(help.code).toBe(0);
    for (const command of ['run', 'resume', 'show', 'tree', 'ls', 'mcp', 'skills', 'batch', 'worker', 'serve'])
      expect(help.stdout).toContain(`  ${command}`);
    const version = await run(BIN, ['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

// bin/loom.js takes the build only while it is current. A load hook, registered before anything
// else runs, writes down which `client/main` Node loads.
describe('which code bin/loom.js runs', () => {
  let probe: string;
  beforeAll(() => {
    probe = mkdtempSync(join(tmpdir(), 'loom-entry-probe-'));
    writeFileSync(
      join(probe, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (/\\/(client|cli)\\/main\\.(ts|js)$/.test(url)) appendFileSync(process.env.LOOM_ENTRY_PROBE, url + '\\n');
  return next(url, context);
}
`,
    );
    writeFileSync(
      join(probe, 'register.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(probe, 'hooks.mjs')).href)});\n`,
    );
  });
  afterAll(() => rmSync(probe, { recursive: true, force: true }));

  function loaded(): string {
    const log = join(probe, `loaded-${Date.now()}.txt`);
    writeFileSync(log, '');
    execFileSync(process.execPath, ['--import', join(probe, 'register.mjs'), BIN, '--version'], {
      env: { ...process.env, LOOM_ENTRY_PROBE: log },
    });
    return readFileSync(log, 'utf8').trim();
  }

  it('the build while it is current, the sources once they are newer than it', () => {
    expect(loaded()).toBe(pathToFileURL(BUILT).href);
    // The build's time is its workflow bundle's: set back before the sources' last change.
    const marker = join(PACKAGE_ROOT, 'dist', 'workflow-bundle.js');
    const { atime, mtime } = statSync(marker);
    utimesSync(marker, atime, new Date(2000, 0, 1));
    try {
      expect(loaded()).toBe(pathToFileURL(join(PACKAGE_ROOT, 'client', 'main.ts')).href);
    } finally {
      utimesSync(marker, atime, mtime);
    }
  });
});

describe('npm pack', () => {
  it('packs the build just made without building it again, and leaves out source maps', () => {
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json'], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
    expect(pack.status).toBe(0);
    expect(pack.stderr).toContain('dist/ is up to date with the sources');
    expect(pack.stderr).not.toContain('Built dist/');
    const [{ files }] = JSON.parse(pack.stdout) as [{ files: { path: string }[] }];
    const paths = files.map((file) => file.path);
    for (const needed of [
      'bin/loom.js',
      'dist/cli/main.js',
      'dist/client/serve/web/index.html',
      'dist/workflow-bundle.js',
      'dist/dev-server/main.js',
      'temporal-dev.sh',
      'docs/configuration.md',
    ])
      expect(paths).toContain(needed);
    expect(paths.filter((path) => path.endsWith('.map'))).toEqual([]);
  }, 120_000);
});

// Node writes to a pipe asynchronously: what a slow reader has not taken yet waits in the process,
// and a command must not exit before it is gone. Each command that can print a lot, from the build
// and from the sources, into a reader that takes nothing for its first second.
describe('output into a pipe', () => {
  const TASKS = 3000;
  const CHILDREN = 700;
  let batchId: string;
  let rootId: string;
  let longId: string;

  beforeAll(async () => {
    batchId = `bat_pipe${Date.now()}`;
    const now = Date.now();
    await env.store.createBatch(
      {
        id: batchId,
        source: 'tasks.jsonl',
        sourceBytes: 1,
        total: TASKS,
        directory: env.project,
        agent: 'general',
        concurrency: 10,
        retries: 0,
        status: 'completed',
        time: { created: now, updated: now },
      },
      Array.from({ length: TASKS }, (_, index) => ({ description: `task ${index}`, prompt: `do ${index}` })),
    );
    await env.store.saveBatchOutcomes(
      batchId,
      Array.from({ length: TASKS }, (_, index) => ({
        index,
        status: 'completed' as const,
        attempts: 1,
        text: `answer ${index} ${'x'.repeat(60)}`,
      })),
    );
    rootId = `ses_piperoot${now}`;
    const session = (id: string, parentID?: string) => ({
      id,
      ...(parentID ? { parentID } : {}),
      title: `Session ${id}`,
      agent: 'build',
      model: 'scripted/test-model',
      directory: env.project,
      status: 'idle' as const,
      time: { created: now, updated: now },
    });
    await env.store.saveSession(session(rootId));
    for (let index = 0; index < CHILDREN; index++) await env.store.saveSession(session(`${rootId}c${index}`, rootId));
    const longAnswer = Array.from({ length: 4000 }, (_, index) => `line ${index} of a long answer`).join('\n');
    env.model.setScript([{ when: { lastUser: 'Say a lot' }, reply: { text: longAnswer } }]);
    const run = await runLoom(['run', '--json', '-m', 'scripted/test-model', 'Say a lot'], {
      env: { ...env.env, NO_COLOR: '1' },
      cwd: env.project,
    });
    longId = parseJson(run).sessionId;
  }, 120_000);

  /** Runs loom with its stdout into a pipe nobody reads for the first second, then reads it all. */
  function throughSlowPipe(entry: string, args: string[]): Promise<LoomResult> {
    const { child, result } = spawnLoom(args, { entry, env: { ...env.env, NO_COLOR: '1' }, cwd: env.project });
    // Paused, the pipe fills and loom's own writes wait in the process, as behind `| jq` on a big answer.
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), 1_000);
    return result;
  }

  const lines = (text: string) => text.split('\n').filter((line) => line !== '');

  for (const [label, entry] of [
    ['the build', BUILT],
    ['the sources', LOOM_BIN],
  ] as const) {
    it(`reaches a slow reader whole from ${label}: batch results, ls, tree and show`, async () => {
      const jsonl = await throughSlowPipe(entry, ['batch', 'results', batchId, '--json']);
      expect(jsonl.code, jsonl.stderr).toBe(0);
      expect(lines(jsonl.stdout)).toHaveLength(TASKS);
      expect(JSON.parse(lines(jsonl.stdout).at(-1)!)).toMatchObject({ index: TASKS - 1, status: 'completed' });
      const text = await throughSlowPipe(entry, ['batch', 'results', batchId]);
      expect(text.stdout).toContain(`answer ${TASKS - 1} `);

      const listed = await throughSlowPipe(entry, ['ls', '--all', '--json', '--limit', String(CHILDREN + 10)]);
      expect(JSON.parse(listed.stdout).length).toBeGreaterThanOrEqual(CHILDREN + 1);
      const tree = await throughSlowPipe(entry, ['tree', rootId, '--json']);
      expect(JSON.stringify(JSON.parse(tree.stdout))).toContain(`${rootId}c${CHILDREN - 1}`);
      const shown = await throughSlowPipe(entry, ['show', longId, '--json']);
      expect(JSON.stringify(JSON.parse(shown.stdout))).toContain('line 3999 of a long answer');
    }, 120_000);
  }

  it('ends quietly, with status 0, when the reader stops early (| head -1)', async () => {
    const pipeline = spawn(
      'bash',
      [
        '-c',
        '"$0" "$1" batch results "$2" --json | head -1; echo "loom exited ${PIPESTATUS[0]}" >&2',
        process.execPath,
        BUILT,
        batchId,
      ],
      {
        env: { ...env.env, NO_COLOR: '1' },
        cwd: env.project,
      },
    );
    let stdout = '';
    let stderr = '';
    pipeline.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    pipeline.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise((resolve) => pipeline.on('close', resolve));
    expect(lines(stdout)).toHaveLength(1);
    expect(JSON.parse(stdout)).toMatchObject({ index: 0 });
    expect(stderr.trim()).toBe('loom exited 0');
  }, 60_000);
});
