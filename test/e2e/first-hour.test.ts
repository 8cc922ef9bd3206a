// What a new user meets in the first hour: set-up mistakes said at once and plainly, runs left
// without a worker picked up by the command that needs them (first-hour-no-worker.test.ts), and
// every printed id showable.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFirstHourEnv, newUserLoom } from '../../testkit/loom/first-hour.js';
import type { LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { PROJECT_ROOT } from '../../worker/bundle.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createFirstHourEnv();
});
afterAll(() => env?.close());

const loom = (args: string[], extra: NodeJS.ProcessEnv = {}) => newUserLoom(env, args, extra);

/** The sessions the store holds: what `loom ls` would list, read without starting one more process. */
const sessionCount = async () => (await env.store.listSessions()).length;

/** Every `LOOM_…` variable Loom's shipped code reads (`env.LOOM_X` in TypeScript and JavaScript, `$LOOM_X` in shell). */
function loomVariablesRead(): string[] {
  const names = new Set<string>();
  const folders = ['activities', 'bin', 'client', 'core', 'dev-server', 'worker', 'workflows'];
  const files = folders.flatMap((folder) =>
    readdirSync(join(PROJECT_ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((path) => /\.(ts|js)$/.test(path))
      .map((path) => join(folder, path)),
  );
  for (const file of [...files, 'temporal-dev.sh']) {
    const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
    for (const match of text.matchAll(/\benv(?:\.|\[['"`])(LOOM_[A-Z0-9_]+)|\$\{?(LOOM_[A-Z0-9_]+)/g)) {
      if (match[1] || file.endsWith('.sh')) names.add(match[1] ?? match[2]);
    }
  }
  return [...names].sort();
}

/** The README's ```sh block that holds `text`. */
function readmeBlock(text: string): string {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].find((match) => match[1].includes(text));
  if (!block) throw new Error(`README.md has no \`\`\`sh block with ${text}`);
  return block[1];
}

describe('the README, followed as written on a stock machine', () => {
  it('puts loom on the PATH where ~/.local/bin does not exist yet', () => {
    const home = mkdtempSync(join(tmpdir(), 'loom-home-'));
    try {
      const shell = spawnSync('bash', ['-e', '-c', `${readmeBlock('~/.local/bin/loom')}\nloom --version`], {
        cwd: PROJECT_ROOT,
        env: { HOME: home, PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, NO_COLOR: '1' },
        encoding: 'utf8',
      });
      expect(shell.stderr).toBe('');
      expect(shell.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
      expect(shell.status).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('set-up mistakes, said before anything starts', () => {
  it('names in --help, or in docs/configuration.md, every LOOM_ variable the code reads', async () => {
    const help = (await loom(['--help'])).stdout;
    expect(help).toContain('LOOM_TEMPORAL_PORT, LOOM_TEMPORAL_UI_PORT  ports of the embedded dev server');
    expect(help).toContain('Every variable Loom reads: docs/configuration.md');
    const documented = help + readFileSync(join(PROJECT_ROOT, 'docs', 'configuration.md'), 'utf8');
    const read = loomVariablesRead();
    expect(read).toContain('LOOM_TEMPORAL_UI_PORT');
    expect(read.filter((name) => !new RegExp(`\\b${name}\\b`).test(documented))).toEqual([]);
  });

  it('says in --help where the model comes from, with an example of each', async () => {
    const help = (await loom(['--help'])).stdout;
    expect(help).toContain('Where the model comes from (first found wins):');
    expect(help).toContain('LOOM_MODEL=google/gemini-2.5-pro loom run');
    expect((await loom(['run', '--help'])).stdout).toContain(
      'loom run -m anthropic/claude-sonnet-4-5 "fix the failing test"',
    );
  });

  it('refuses a pasted placeholder in a key at once, naming the character, and starts nothing', async () => {
    const before = await sessionCount();
    const result = await loom(['run', '-m', 'openai/gpt-4.1', 'What does this project do?'], {
      OPENAI_API_KEY: 'sk-…',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'The API key of provider "openai" contains "…" (U+2026) at position 4, which HTTP headers cannot carry',
    );
    expect(await sessionCount()).toBe(before);
  });

  it('says where a model comes from when nothing names one', async () => {
    const result = await loom(['run', 'hello']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'No model: pass --model provider/model, set "model" in loom.json or on the agent, set LOOM_MODEL, or set a provider\'s key (OPENAI_API_KEY, ANTHROPIC_API_KEY',
    );
  });

  it('names the variable of a missing key when this command would run the session', async () => {
    const before = await sessionCount();
    const result = await loom(['run', '-m', 'anthropic/claude-sonnet-4-5', 'hello']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'No API key for provider "anthropic": set ANTHROPIC_API_KEY, or provider.anthropic.options.apiKey in loom.json.',
    );
    expect(await sessionCount()).toBe(before);
  });

  it('gives up on a model nobody listens for after a few quick attempts, saying what to check', async () => {
    const result = await loom(['run', '-m', 'dead/model', 'hello']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /Cannot reach dead\/model at .*: nothing is listening there \(is the model server running\? check the provider's options.baseURL\)/,
    );
    expect(result.stderr).toMatch(
      /Gave up after 3 attempts: session ses_\w+ has never reached this model, so this looks like set-up rather than an outage/,
    );
    // Said once, as it happened, not again under the last line.
    expect(result.stderr.match(/Gave up after/g)).toHaveLength(1);
  });

  it('warns that an unknown /command goes to the model as a plain prompt', async () => {
    env.model.setScript([{ name: 'plain', when: { lastUser: '/tidy the docs' }, reply: { text: 'Tidied.' } }]);
    const result = await loom(['run', '-m', 'scripted/test-model', '/tidy the docs']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('warning: /tidy is not a command of this project, which has none: add one');
    expect(result.stdout).toContain('Tidied.');
  });
});

describe('with a worker already running', () => {
  beforeAll(async () => {
    await env.worker({ env: { ...env.env, ANTHROPIC_API_KEY: 'test' } });
  });

  it('keeps a session whose first run failed on its configuration, so its id can be shown and resumed', async () => {
    const { sessionId, result } = await env.start('Hello', { agent: 'nobody' });
    await expect(result()).rejects.toThrow();
    const session = await env.store.getSession(sessionId);
    expect(session).toMatchObject({
      status: 'failed',
      error: { name: 'UnknownAgent', message: expect.stringContaining('nobody') },
    });
    expect((await loom(['ls', '--json'])).stdout).toContain(sessionId);
    expect((await loom(['show', sessionId])).stdout).toMatch(/UnknownAgent: .*nobody/);

    env.model.setScript([{ name: 'again', when: { lastUser: 'Hello again' }, reply: { text: 'Hello back.' } }]);
    const resumed = await loom(['resume', sessionId, '-a', 'build', 'Hello again']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('Hello back.');
    expect((await env.store.getSession(sessionId))?.error).toBeUndefined();
  });

  it('warns when the key is missing here but the running worker will make the model calls', async () => {
    env.model.setScript([
      { name: 'there', when: { lastUser: 'Key elsewhere' }, reply: { text: 'The worker had it.' } },
    ]);
    const result = await loom(['run', '-m', 'anthropic/claude-sonnet-4-5', 'Key elsewhere']);
    expect(result.stderr).toContain('warning: No API key for provider "anthropic"');
    expect(result.stderr).toContain("its model calls use the key of that worker's environment");
    expect(result.stdout).toContain('The worker had it.');
    expect(env.model.requests.findLast((r) => r.rule === 'there')?.protocol).toBe('anthropic');
  });
});
