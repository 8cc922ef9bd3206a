// `npm run demo`, as a new user runs it with its output piped: true answers, a real title, plain text.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAnswerProblems } from '../../testkit/demo/demo-checks.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { PROJECT_ROOT } from '../../worker/bundle.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv();
});
afterAll(() => env?.close());

function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const demoEnv = { ...env.env };
  // As a person's shell has it: colour is picocolors' choice, which a pipe turns off.
  for (const name of ['NO_COLOR', 'FORCE_COLOR', 'CI']) delete demoEnv[name];
  const child = spawn(process.execPath, ['--import', 'tsx', 'testkit/demo/demo.ts'], {
    cwd: PROJECT_ROOT,
    env: demoEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run demo', () => {
  it('answers truly about this checkout, titles its session, and prints no colour codes into a pipe', async () => {
    const demo = await runDemo();
    expect(demo.stderr).not.toContain('answers are wrong');
    expect(demo.code).toBe(0);

    const loopLine =
      readFileSync(join(PROJECT_ROOT, 'workflows/session.ts'), 'utf8')
        .split('\n')
        .findIndex((line) => line.includes('export async function sessionWorkflow(')) + 1;
    expect(demo.stdout).toContain(`workflows/session.ts:${loopLine}`);

    const [session] = await env.store.listSessions({ limit: 1 });
    expect(session.title).toBe('Tour of the Loom project');
    expect(demo.stdout).toContain('Tour of the Loom project');

    expect(demo.stdout + demo.stderr).not.toContain('\x1b[');
  }, 120_000);

  it('fails on answers that no longer match the code, saying what is wrong', () => {
    const stale = [
      'This is Loom. I found 100 test files under test/, grouped in e2e.',
      'The loop is `sessionWorkflow` in workflows/session-files.ts:11.',
    ];
    const problems = demoAnswerProblems(stale, PROJECT_ROOT);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^An answer says there are 100 test files, but test\/ holds \d+\.$/);
    expect(problems[1]).toContain(
      'An answer puts `sessionWorkflow` at workflows/session-files.ts:11, but that line is',
    );
  });
});
