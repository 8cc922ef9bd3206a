import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../activities/package-root.js';
import { createLoomTestEnv, type LoomTestEnv } from '../support/loom-env.js';
import { parseJson, runLoom } from '../support/run-loom.js';

const BUILT = join(PACKAGE_ROOT, 'dist', 'client', 'main.js');
const BIN = join(PACKAGE_ROOT, 'bin', 'loom.js');

let env: LoomTestEnv;

beforeAll(async () => {
  // The build the package ships: compiled code, the web view's files and the workflow bundle.
  execFileSync('npm', ['run', 'build'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  env = await createLoomTestEnv({ files: { 'README.md': '# Built\n' } });
}, 300_000);
afterAll(() => env?.close());

const run = (entry: string, args: string[]) => runLoom(args, { entry, env: { ...env.env, NO_COLOR: '1' }, cwd: env.project });

describe('the built CLI (npm run build)', () => {
  it('has the compiled code, the web view and the workflow bundle in dist/', () => {
    expect(existsSync(BUILT)).toBe(true);
    expect(existsSync(join(PACKAGE_ROOT, 'dist', 'client', 'serve', 'web', 'index.html'))).toBe(true);
    expect(existsSync(join(PACKAGE_ROOT, 'dist', 'workflow-bundle.js'))).toBe(true);
  });

  it('runs a session from the compiled code, with the bundled workflows, and shows it', async () => {
    env.model.setScript([
      { name: 'look', when: { lastUser: 'Read the readme', lastRole: 'user' }, reply: { toolCalls: [{ name: 'read', args: { filePath: 'README.md' } }] } },
      { name: 'answer', when: { lastUser: 'Read the readme', lastRole: 'tool' }, reply: { text: 'It says: Built.' } },
    ]);
    const result = await run(BUILT, ['run', '--json', '-m', 'scripted/test-model', 'Read the readme']);
    expect(parseJson(result)).toMatchObject({ status: 'completed', text: 'It says: Built.' });
    const shown = await run(BIN, ['show', parseJson(result).sessionId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('It says: Built.');
  }, 120_000);

  it('the bin prints the version and its help lists every command', async () => {
    const help = await run(BIN, ['--help']);
    expect(help.code).toBe(0);
    for (const command of ['run', 'resume', 'show', 'tree', 'ls', 'mcp', 'skills', 'batch', 'worker', 'serve']) expect(help.stdout).toContain(`  ${command}`);
    const version = await run(BIN, ['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
