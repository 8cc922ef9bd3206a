import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configLayers, loadConfig } from '../../activities/config/load.js';
import { commandsOf } from '../../core/config/built-in-commands.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchRulesUrls, findRules, RULES_LIMIT_BYTES } from '../../activities/config/rules.js';

// Real folders: a repository with rules at its root and in a package, a home and a global config folder.

let root: string;
let repo: string;
let pkg: string;
let env: NodeJS.ProcessEnv;

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

function rulesOf(directory: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const runEnv = { ...env, ...extraEnv };
  return findRules(directory, runEnv, configLayers(directory, runEnv, { markdown: false }));
}

const sources = (directory: string, extraEnv?: NodeJS.ProcessEnv) =>
  rulesOf(directory, extraEnv).rules.map((rule) => rule.source);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loom-rules-'));
  repo = join(root, 'repo');
  pkg = join(repo, 'packages', 'api');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(pkg, { recursive: true });
  env = { HOME: join(root, 'home'), LOOM_CONFIG_DIR: join(root, 'config'), XDG_CONFIG_HOME: join(root, 'xdg') };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('rules files', () => {
  it('reads every AGENTS.md from the repository root down to the folder, the nearest last, after the global one', () => {
    write(join(repo, 'AGENTS.md'), 'Run the tests with `make check`.');
    write(join(pkg, 'AGENTS.md'), 'Never touch vendor/.');
    write(join(repo, 'packages', 'README.md'), 'not rules');
    write(join(root, 'config', 'AGENTS.md'), 'Answer in English.');
    write(join(root, 'AGENTS.md'), 'above the repository: not read');
    const { rules } = rulesOf(pkg);
    expect(rules).toEqual([
      { source: join(root, 'config', 'AGENTS.md'), text: 'Answer in English.' },
      { source: join(repo, 'AGENTS.md'), text: 'Run the tests with `make check`.' },
      { source: join(pkg, 'AGENTS.md'), text: 'Never touch vendor/.' },
    ]);
  });

  it('falls back to CLAUDE.md where there is no AGENTS.md, unless OpenCode’s switch turns it off', () => {
    write(join(repo, 'CLAUDE.md'), 'Claude rules');
    write(join(root, 'home', '.claude', 'CLAUDE.md'), 'global Claude rules');
    expect(sources(pkg)).toEqual([join(root, 'home', '.claude', 'CLAUDE.md'), join(repo, 'CLAUDE.md')]);
    expect(sources(pkg, { OPENCODE_DISABLE_CLAUDE_CODE_PROMPT: '1' })).toEqual([]);
    write(join(pkg, 'AGENTS.md'), 'agents rules');
    expect(sources(pkg)).toEqual([join(root, 'home', '.claude', 'CLAUDE.md'), join(pkg, 'AGENTS.md')]);
  });

  it('takes OpenCode’s global AGENTS.md when Loom has none', () => {
    write(join(root, 'xdg', 'opencode', 'AGENTS.md'), 'OpenCode global rules');
    expect(sources(pkg)).toEqual([join(root, 'xdg', 'opencode', 'AGENTS.md')]);
  });

  it('adds the files `instructions` names, relative to the config file, a glob taking each match in name order', () => {
    write(join(repo, 'docs', 'rules', 'b-style.md'), 'style');
    write(join(repo, 'docs', 'rules', 'a-testing.md'), 'testing');
    write(join(repo, 'docs', 'rules', 'notes.txt'), 'not matched');
    write(join(repo, 'CONTRIBUTING.md'), 'contributing');
    write(join(repo, 'loom.json'), JSON.stringify({ instructions: ['docs/rules/*.md', 'CONTRIBUTING.md'] }));
    expect(sources(pkg)).toEqual([
      join(repo, 'docs', 'rules', 'a-testing.md'),
      join(repo, 'docs', 'rules', 'b-style.md'),
      join(repo, 'CONTRIBUTING.md'),
    ]);
  });

  it('says which config file names a rules file that is not there, and reads the rest', () => {
    write(join(repo, 'AGENTS.md'), 'rules');
    write(join(repo, 'opencode.json'), JSON.stringify({ instructions: ['missing.md'] }));
    const { rules, problems } = rulesOf(repo);
    expect(rules.map((rule) => rule.source)).toEqual([join(repo, 'AGENTS.md')]);
    expect(problems).toEqual([`${join(repo, 'opencode.json')}: "instructions" names missing.md, which is not a file`]);
  });

  it('does not read a project AGENTS.md that links out of the repository, and says so', () => {
    write(join(root, 'home', '.env'), 'API_KEY=sk-secret');
    symlinkSync(join(root, 'home', '.env'), join(pkg, 'AGENTS.md'));
    write(join(repo, 'AGENTS.md'), 'root rules');
    const { rules, problems } = rulesOf(pkg);
    expect(rules.map((rule) => rule.source)).toEqual([join(repo, 'AGENTS.md')]);
    expect(rules.map((rule) => rule.text).join('\n')).not.toContain('sk-secret');
    expect(problems).toEqual([`${join(pkg, 'AGENTS.md')} links out of ${repo}, so it is not read as rules`]);
  });

  it('cuts a rules file over 64 KiB, saying so', () => {
    write(join(repo, 'AGENTS.md'), 'x'.repeat(RULES_LIMIT_BYTES + 5_000));
    const [rule] = rulesOf(repo).rules;
    expect(rule.text.startsWith('x'.repeat(RULES_LIMIT_BYTES))).toBe(true);
    expect(rule.text).toContain('[Loom cut this file here: it is 69 KiB, and rules files are read up to 64 KiB.]');
  });

  it('refuses an `instructions` that is not a list of paths, naming the file and the key', () => {
    write(join(repo, 'loom.json'), JSON.stringify({ instructions: 'AGENTS.md' }));
    expect(() => rulesOf(repo)).toThrow(/loom\.json[\s\S]*instructions/);
  });

  it('fetches the URLs `instructions` names, and says which one failed and where it is named', async () => {
    const server = createServer((request, response) => {
      if (request.url?.startsWith('/rules.md')) response.end('URL RULE: keep commits small.');
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      write(
        join(repo, 'loom.json'),
        JSON.stringify({ instructions: [`${base}/rules.md?token=secret-token`, `${base}/gone.md`] }),
      );
      const { rules, urls } = rulesOf(repo);
      expect(rules).toEqual([]);
      const fetched = await fetchRulesUrls(urls);
      // Named without its query: a token in it does not reach the model's prompt.
      expect(fetched.rules).toEqual([{ source: `${base}/rules.md`, text: 'URL RULE: keep commits small.' }]);
      expect(fetched.problems).toEqual([
        `${join(repo, 'loom.json')}: "instructions" names ${base}/gone.md, which could not be fetched (HTTP 404)`,
      ]);
    } finally {
      server.close();
    }
  });
});

describe('/init', () => {
  it('is a built-in command asking for AGENTS.md, which a project’s own `command.init` replaces', () => {
    const init = commandsOf(loadConfig(repo, env)).init;
    expect(init?.description).toContain('AGENTS.md');
    expect(init?.template).toContain('Write an AGENTS.md at the root of this project');
    expect(init?.template).toContain('$ARGUMENTS');
    write(join(repo, 'loom.json'), JSON.stringify({ command: { init: { template: 'Our own init.' } } }));
    expect(commandsOf(loadConfig(repo, env)).init).toEqual({ template: 'Our own init.' });
  });
});
