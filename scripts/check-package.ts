// `npm run check:package`: what a user of the published package gets. Packs Loom (which builds it),
// installs the tarball globally into a temporary prefix, and from a folder outside the checkout runs
// `loom --help` and a session against a scripted model on a throwaway Temporal dev server.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../activities/package-root.js';
import { startScriptedModel } from '../testkit/scripted-model.js';
import { startTemporalServer } from '../testkit/temporal-server.js';

const work = mkdtempSync(join(tmpdir(), 'loom-package-'));
const step = (what: string) => process.stderr.write(`\n== ${what}\n`);
try {
  step('npm pack (builds dist/)');
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
  execFileSync('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const loom = join(prefix, 'bin', 'loom');

  const project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Packaged\n');
  const temporal = await startTemporalServer();
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
  } finally {
    await model.close();
    await temporal.teardown();
  }
  step('the package works');
} finally {
  rmSync(work, { recursive: true, force: true });
}
