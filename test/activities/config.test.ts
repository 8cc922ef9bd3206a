import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../activities/config/load.js';

/** A project configured the way OpenCode users do it; copied into a temp folder per test. */
const fixture = fileURLToPath(new URL('../fixtures/opencode-project', import.meta.url));

let root: string;
/** The user's global config folder (`LOOM_CONFIG_DIR`). */
let globalDir: string;
/** A project two folders below `root`: root/work/project. */
let project: string;

function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function load(extraEnv: NodeJS.ProcessEnv = {}) {
  return loadConfig(project, { LOOM_CONFIG_DIR: globalDir, ...extraEnv });
}

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loom-config-'));
  globalDir = join(root, 'global');
  project = join(root, 'work', 'project');
  mkdirSync(globalDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('loadConfig', () => {
  it('returns an empty config when there are no files', () => {
    expect(load()).toEqual({});
  });

  it('reads JSONC with comments and trailing commas', () => {
    write(
      join(project, 'loom.jsonc'),
      `{
        // the default model
        "model": "local/qwen", /* block comment */
        "provider": { "local": { "options": { "baseURL": "http://localhost:1234/v1", }, }, },
      }`,
    );
    expect(load()).toEqual({
      model: 'local/qwen',
      provider: { local: { options: { baseURL: 'http://localhost:1234/v1' } } },
    });
  });

  it('reads a file again as it is now, and what one caller changes in its config no other caller sees', () => {
    write(join(project, 'loom.json'), '{ "model": "first/m", "provider": { "local": { "options": { "x": 1 } } } }');
    const first = load();
    first.provider!.local.options!.x = 2;
    expect(load().provider?.local.options).toEqual({ x: 1 });
    write(join(project, 'loom.json'), '{ "model": "second/m" }');
    expect(load().model).toBe('second/m');
    write(join(project, 'loom.json'), '{ "model": "second/m", "nonsense": true }');
    expect(configError(load).message).toContain('nonsense');
  });

  it('substitutes {env:VAR} from the env it is given, and an unset variable with nothing', () => {
    write(
      join(project, 'loom.json'),
      '{ "provider": { "local": { "options": { "apiKey": "{env:LOCAL_KEY}", "headers": { "x": "a{env:UNSET_VAR}b" } } } } }',
    );
    expect(load({ LOCAL_KEY: 'sk-123' }).provider?.local.options).toEqual({ apiKey: 'sk-123', headers: { x: 'ab' } });
  });

  it('lets the project override the global folder, and LOOM_CONFIG_CONTENT override both', () => {
    write(join(globalDir, 'loom.json'), '{ "model": "global/m" }');
    expect(load().model).toBe('global/m');
    write(join(project, 'loom.json'), '{ "model": "project/m" }');
    expect(load().model).toBe('project/m');
    expect(load({ LOOM_CONFIG_CONTENT: '{ "model": "content/m" }' }).model).toBe('content/m');
  });

  it('reads files from the filesystem root down to the project, the nearest winning', () => {
    write(join(root, 'loom.json'), '{ "model": "root/m", "$schema": "root" }');
    write(join(root, 'work', 'loom.json'), '{ "model": "work/m" }');
    expect(load()).toMatchObject({ model: 'work/m', $schema: 'root' });
    write(join(project, 'loom.json'), '{ "model": "project/m" }');
    expect(load().model).toBe('project/m');
  });

  it('ignores config files below the project directory', () => {
    write(join(project, 'sub', 'loom.json'), '{ "model": "sub/m" }');
    expect(load().model).toBeUndefined();
  });

  it('merges providers key by key across files instead of replacing them', () => {
    write(
      join(globalDir, 'loom.json'),
      JSON.stringify({
        provider: {
          local: { options: { baseURL: 'http://localhost:1234/v1', apiKey: 'global' } },
          other: { name: 'Other' },
        },
      }),
    );
    write(join(project, 'loom.json'), JSON.stringify({ provider: { local: { options: { apiKey: 'project' } } } }));
    expect(load().provider).toEqual({
      local: { options: { baseURL: 'http://localhost:1234/v1', apiKey: 'project' } },
      other: { name: 'Other' },
    });
  });

  it('lets loom.json beat opencode.json in the same folder, keeping what only opencode.json sets', () => {
    write(join(project, 'opencode.json'), '{ "model": "opencode/m", "$schema": "opencode" }');
    write(join(project, 'loom.json'), '{ "model": "loom/m" }');
    expect(load()).toEqual({ model: 'loom/m', $schema: 'opencode' });
  });

  it('names the file and the key of an invalid value', () => {
    const file = write(
      join(project, 'loom.json'),
      '{ "provider": { "local": { "options": { "baseURL": "not a url" } } } }',
    );
    const error = configError(() => load());
    expect(error.message).toContain(file);
    expect(error.message).toContain('provider.local.options.baseURL');
  });

  it('names the file and the key of a bad rate limit', () => {
    const file = write(
      join(project, 'loom.json'),
      '{ "provider": { "local": { "limit": { "rpm": 0 }, "models": { "m": { "limit": { "tpm": 1.5 } } } } } }',
    );
    const error = configError(() => load());
    expect(error.message).toContain(file);
    expect(error.message).toContain('provider.local.limit.rpm');
    expect(error.message).toContain('provider.local.models.m.limit.tpm');
  });

  it("takes a model limit of rate limits alone, but a window's context and output only together", () => {
    write(
      join(project, 'loom.json'),
      '{ "provider": { "local": { "limit": { "rpm": 500, "tpm": 30000 }, "models": { "m": { "limit": { "rpm": 60 } } } } } }',
    );
    expect(load().provider?.local).toMatchObject({
      limit: { rpm: 500, tpm: 30000 },
      models: { m: { limit: { rpm: 60 } } },
    });
    write(
      join(project, 'loom.json'),
      '{ "provider": { "local": { "models": { "m": { "limit": { "context": 8000, "rpm": 6 } } } } } }',
    );
    expect(configError(() => load()).message).toContain(
      'provider.local.models.m.limit.context: context and output are given together',
    );
  });

  it('names the file and the line of invalid JSON', () => {
    const file = write(join(globalDir, 'opencode.json'), '{\n  "model": "a/b",\n  "provider": {\n    "x": \n}\n');
    const error = configError(() => load());
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/invalid JSON at line 5\b/);
  });

  it('names LOOM_CONFIG_CONTENT when that is what is invalid', () => {
    const error = configError(() => load({ LOOM_CONFIG_CONTENT: '{ "model": 42 }' }));
    expect(error.message).toContain('LOOM_CONFIG_CONTENT');
    expect(error.message).toContain('model');
  });

  it('names the file and the key of a broken shell_env', () => {
    const file = write(
      join(project, 'loom.json'),
      '{ "shell_env": { "PORT": 3000, "MY-VAR": "x", "inherit": "GH_TOKEN" } }',
    );
    const { message } = configError(() => load());
    expect(message).toContain(file);
    expect(message).toContain(
      'shell_env.PORT: expected a string (the value to set) or null (to remove the variable), got 3000',
    );
    expect(message).toContain('shell_env.MY-VAR: "MY-VAR" is not a variable name');
    expect(message).toContain('shell_env.inherit: expected a list of variable names');
    write(join(project, 'loom.json'), '{ "shell_env": { "inherit": ["GH_TOKEN", "bad name"] } }');
    expect(configError(() => load()).message).toContain('shell_env.inherit.1: "bad name" is not a variable name');
    write(join(project, 'loom.json'), '{ "shell_env": ["GH_TOKEN"] }');
    expect(configError(() => load()).message).toContain('shell_env: expected an object of variables');
  });

  it('refuses a top-level key neither Loom nor OpenCode knows, naming the file, the key and the key it likely meant', () => {
    const file = write(join(project, 'loom.json'), '{ "provder": {}, "model": "local/qwen", "colour_scheme": "dark" }');
    const { message } = configError(() => load());
    expect(message).toContain(`Unknown key "provder" in ${file}: did you mean "provider"?`);
    expect(message).toContain(`Unknown key "colour_scheme" in ${file}: neither Loom nor OpenCode reads it`);
    write(join(project, 'loom.json'), '{ "Model": "local/qwen" }');
    expect(configError(() => load()).message).toContain('did you mean "model"?');
  });

  it("accepts the keys of OpenCode's schema that Loom ignores", () => {
    write(
      join(project, 'opencode.json'),
      JSON.stringify({
        $schema: 'https://opencode.ai/config.json',
        theme: 'tokyonight',
        keybinds: { leader: 'ctrl+x' },
        tui: { scroll_speed: 2 },
        share: 'disabled',
        autoupdate: false,
        lsp: false,
        formatter: false,
        layout: 'stretch',
        username: 'ada',
        instructions: ['CONTRIBUTING.md'],
      }),
    );
    expect(load()).toMatchObject({ theme: 'tokyonight', username: 'ada' });
  });

  it('keeps keybinds for the terminal UI, refusing a value that is not keys, naming the file and key', () => {
    write(join(project, 'loom.json'), JSON.stringify({ keybinds: { leader: 'ctrl+g', tool_details: false } }));
    expect(load()).toEqual({ keybinds: { leader: 'ctrl+g', tool_details: false } });
    const file = write(join(project, 'loom.json'), JSON.stringify({ keybinds: { session_new: ['ctrl+n'] } }));
    const { message } = configError(() => load());
    expect(message).toContain(file);
    expect(message).toContain(
      'keybinds.session_new: expected keys such as "ctrl+x,<leader>n", "none" or false, got ["ctrl+n"]',
    );
  });
});

describe('loadConfig with a real OpenCode project', () => {
  beforeEach(() => cpSync(fixture, project, { recursive: true }));

  it('loads opencode.json and .opencode/ markdown unchanged, keeping keys Loom ignores', () => {
    const config = load();
    expect(config).toMatchObject({
      $schema: 'https://opencode.ai/config.json',
      theme: 'tokyonight',
      plugin: ['opencode-notifier'],
      instructions: ['CONTRIBUTING.md', 'docs/guidelines/*.md'],
      mcp: { context7: { type: 'remote' } },
      model: 'anthropic/claude-sonnet-4-5',
      small_model: 'anthropic/claude-haiku-4-5',
      tools: { todowrite: true },
      provider: {
        ollama: { npm: '@ai-sdk/openai-compatible', models: { 'qwen2.5-coder:7b': { name: 'Qwen 2.5 Coder 7B' } } },
      },
    });
    expect(Object.keys(config.agent ?? {}).sort()).toEqual(['build', 'doc-checker', 'docs/writer', 'focus', 'review']);
    expect(Object.keys(config.command ?? {}).sort()).toEqual(['changelog', 'test']);
    expect(config).not.toHaveProperty('mode');
  });

  it('turns a markdown agent into the JSON form, the body becoming its prompt', () => {
    const review = load().agent?.review;
    expect(review).toEqual({
      description: 'Reviews code for quality and best practices',
      mode: 'subagent',
      model: 'anthropic/claude-sonnet-4-5',
      temperature: 0.1,
      permission: {
        edit: 'deny',
        bash: { '*': 'ask', 'git diff*': 'allow', 'git log*': 'allow', 'grep *': 'allow' },
        webfetch: 'deny',
      },
      tools: { write: false },
      prompt: expect.stringMatching(
        /^You are in code review mode\. Focus on:\n\n- Code quality[\s\S]*without making direct changes\.$/,
      ),
    });
  });

  it('names agents in subfolders by their path and keeps their frontmatter', () => {
    expect(load().agent?.['docs/writer']).toEqual({
      description: 'Writes and maintains project documentation. Use after adding a feature.',
      mode: 'subagent',
      color: '#38A3EE',
      steps: 20,
      tools: { bash: false },
      prompt:
        "You are a technical writer. Create clear, comprehensive documentation\nwith examples, and keep the README's table of contents in sync.",
    });
  });

  it('keeps the order of permission keys and patterns as written', () => {
    const config = load();
    const permission = config.permission as Record<string, Record<string, string>>;
    expect(Object.keys(permission)).toEqual(['edit', 'bash', 'webfetch']);
    expect(Object.keys(permission.bash)).toEqual([
      '*',
      'git status*',
      'git diff*',
      'npm test*',
      'git push*',
      'rm -rf *',
    ]);
    const review = config.agent?.review.permission as Record<string, Record<string, string>>;
    expect(Object.keys(review)).toEqual(['edit', 'bash', 'webfetch']);
    expect(Object.keys(review.bash)).toEqual(['*', 'git diff*', 'git log*', 'grep *']);
  });

  it('turns a markdown command into the JSON form, the body becoming its template', () => {
    const { command } = load();
    expect(command?.test).toEqual({
      description: 'Run the tests and review the failures',
      agent: 'review',
      subtask: true,
      template:
        'Run the full test suite with coverage and show any failures.\nFocus on the failing tests for $ARGUMENTS and suggest fixes, starting from @src/x.ts.',
    });
    expect(command?.changelog.template).toContain('!`git log --oneline');
  });

  it('reads maxSteps as steps and moves unknown agent keys into options', () => {
    expect(load().agent?.['doc-checker']).toEqual({
      description: 'Checks docs for broken links; use after editing markdown.',
      mode: 'subagent',
      model: 'ollama/qwen2.5-coder:7b',
      steps: 15,
      options: { reasoningEffort: 'low' },
      permission: { edit: 'deny', bash: { '*': 'deny', 'lychee *': 'allow' } },
    });
  });

  it('makes a legacy mode file a primary agent', () => {
    expect(load().agent?.focus).toEqual({
      mode: 'primary',
      model: 'anthropic/claude-sonnet-4-5',
      temperature: 0.2,
      tools: { webfetch: false },
      prompt: 'Stay on the task at hand. Do not refactor code you were not asked to change.',
    });
  });
});

describe('loadConfig layers', () => {
  const agent = (description: string, extra = '') =>
    `---\ndescription: ${description}\n${extra}---\nPrompt from ${description}.\n`;

  it('applies global JSON, global markdown, then per level JSON, .opencode/, .loom/, then LOOM_CONFIG_CONTENT', () => {
    const work = join(root, 'work');
    write(
      join(globalDir, 'opencode.json'),
      JSON.stringify({ agent: { a: { description: 'global json', temperature: 0.5 } } }),
    );
    write(join(globalDir, 'agent', 'a.md'), agent('global md', 'color: red\n'));
    expect(load().agent?.a).toEqual({
      description: 'global md',
      temperature: 0.5,
      color: 'red',
      prompt: 'Prompt from global md.',
    });

    write(join(work, 'opencode.json'), JSON.stringify({ agent: { a: { description: 'work json' } } }));
    write(join(work, '.loom', 'agents', 'a.md'), agent('work .loom'));
    write(join(work, '.opencode', 'agent', 'a.md'), agent('work .opencode', 'top_p: 0.9\n'));
    expect(load().agent?.a).toMatchObject({ description: 'work .loom', top_p: 0.9, temperature: 0.5, color: 'red' });

    write(
      join(project, '.opencode', 'opencode.json'),
      JSON.stringify({ agent: { a: { description: 'project .opencode json' } } }),
    );
    write(join(project, 'loom.json'), JSON.stringify({ agent: { a: { description: 'project json', steps: 3 } } }));
    expect(load().agent?.a).toMatchObject({
      description: 'project .opencode json',
      steps: 3,
      prompt: 'Prompt from work .loom.',
    });

    write(join(project, '.opencode', 'agent', 'a.md'), agent('project .opencode md'));
    expect(load().agent?.a.description).toBe('project .opencode md');
    expect(load({ LOOM_CONFIG_CONTENT: '{ "agent": { "a": { "description": "content" } } }' }).agent?.a).toEqual({
      description: 'content',
      temperature: 0.5,
      color: 'red',
      top_p: 0.9,
      steps: 3,
      prompt: 'Prompt from project .opencode md.',
    });
  });

  it('reads commands and legacy modes from the global folder too', () => {
    write(join(globalDir, 'commands', 'git', 'sync.md'), '---\ndescription: Sync\n---\nPull and rebase $1.');
    write(join(globalDir, 'modes', 'quiet.md'), '---\nmode: subagent\n---\nBe brief.');
    const config = load();
    expect(config.command?.['git/sync']).toEqual({ description: 'Sync', template: 'Pull and rebase $1.' });
    expect(config.agent?.quiet).toEqual({ mode: 'primary', prompt: 'Be brief.' });
  });

  it('lets an agent file beat a mode file of the same name in one folder', () => {
    write(join(project, '.opencode', 'mode', 'x.md'), '---\ntemperature: 0.1\n---\nMode prompt.');
    write(join(project, '.opencode', 'agent', 'x.md'), '---\nmode: all\n---\nAgent prompt.');
    expect(load().agent?.x).toEqual({ mode: 'all', temperature: 0.1, prompt: 'Agent prompt.' });
  });

  it('lets a frontmatter name override the file name', () => {
    write(
      join(project, '.opencode', 'agent', 'reviewers', 'sec.md'),
      '---\nname: security\ndescription: Security review\n---\nLook for injection.',
    );
    write(
      join(project, '.opencode', 'agent', 'reviewers', 'style.md'),
      '---\ndescription: Style review\n---\nLook at names.',
    );
    expect(Object.keys(load().agent ?? {}).sort()).toEqual(['reviewers/style', 'security']);
  });

  it('reads a markdown file without frontmatter as a prompt alone', () => {
    write(join(project, '.opencode', 'agent', 'plain.md'), '\nJust a prompt.\n');
    expect(load().agent?.plain).toEqual({ prompt: 'Just a prompt.' });
  });

  it('substitutes {env:VAR} in frontmatter, not in the body', () => {
    write(
      join(project, '.opencode', 'agent', 'e.md'),
      '---\nmodel: "{env:REVIEW_MODEL}"\n---\nKeep {env:REVIEW_MODEL} literal.',
    );
    expect(load({ REVIEW_MODEL: 'local/qwen' }).agent?.e).toEqual({
      model: 'local/qwen',
      prompt: 'Keep {env:REVIEW_MODEL} literal.',
    });
  });

  it('turns JSON mode.<name> into a primary agent, an agent entry of the same name winning', () => {
    write(
      join(project, 'opencode.json'),
      JSON.stringify({
        mode: { focus: { temperature: 0.2 }, both: { temperature: 0.2, prompt: 'mode' } },
        agent: { both: { prompt: 'agent' } },
      }),
    );
    const config = load();
    expect(config.agent).toEqual({
      focus: { mode: 'primary', temperature: 0.2 },
      both: { mode: 'primary', temperature: 0.2, prompt: 'agent' },
    });
    expect(config).not.toHaveProperty('mode');
  });

  it('accepts the Loom-only keys and experimental.primary_tools', () => {
    write(
      join(project, 'loom.json'),
      JSON.stringify({
        doom_loop_threshold: 4,
        permission_timeout: 300,
        default_agent: 'plan',
        experimental: { primary_tools: ['edit'], batch_tool: true },
      }),
    );
    expect(load()).toEqual({
      doom_loop_threshold: 4,
      permission_timeout: 300,
      default_agent: 'plan',
      experimental: { primary_tools: ['edit'], batch_tool: true },
    });
  });
});

describe('loadConfig markdown errors', () => {
  it('retries YAML with an unquoted colon in a value as a block scalar', () => {
    write(
      join(project, '.opencode', 'agent', 'review.md'),
      '---\ndescription: Use this: when reviewing\nmode: subagent\n---\nReview.',
    );
    expect(load().agent?.review).toEqual({
      description: 'Use this: when reviewing',
      mode: 'subagent',
      prompt: 'Review.',
    });
  });

  it('names the file and the key of an invalid frontmatter value', () => {
    const file = write(
      join(project, '.opencode', 'agent', 'review.md'),
      '---\ndescription: Reviews\nmode: reviewer\n---\nReview.',
    );
    expect(configError(() => load()).message).toBe(
      `${file}: invalid configuration\n  mode: Invalid option: expected one of "primary"|"subagent"|"all"`,
    );
  });

  it('names the key of a model without a provider, and of steps below one', () => {
    const file = write(join(project, '.opencode', 'agents', 'bad.md'), '---\nmodel: gpt-4o\nsteps: 0\n---\nx');
    const { message } = configError(() => load());
    expect(message).toContain(file);
    expect(message).toContain('model: Invalid model "gpt-4o": expected provider/model');
    expect(message).toContain('steps:');
  });

  it('names the permission and pattern of an invalid action', () => {
    const file = write(
      join(project, '.opencode', 'agent', 'review.md'),
      '---\npermission:\n  bash:\n    "git *": maybe\n---\nReview.',
    );
    const { message } = configError(() => load());
    expect(message).toContain(file);
    expect(message).toContain('permission.bash.git *:');
  });

  it('names the file and the line of broken YAML', () => {
    const file = write(
      join(project, '.opencode', 'agent', 'review.md'),
      '---\ndescription: Reviews\npermission:\n  edit: deny\n bash: ask\n---\nReview.',
    );
    const { message } = configError(() => load());
    expect(message).toContain(file);
    expect(message).toMatch(/invalid YAML frontmatter at line 5\b/);
  });

  it('names the file of a command without a template', () => {
    const file = write(join(project, '.opencode', 'command', 'empty.md'), '---\ndescription: Nothing\n---\n');
    const { message } = configError(() => load());
    expect(message).toContain(file);
    expect(message).toContain('template:');
  });

  it('names the file of frontmatter that is never closed', () => {
    const file = write(join(project, '.opencode', 'agent', 'open.md'), '---\ndescription: Reviews\nReview.');
    expect(configError(() => load()).message).toContain(file);
  });

  it('rejects an out-of-range Loom-only key with its name', () => {
    const { message } = configError(() => load({ LOOM_CONFIG_CONTENT: '{ "doom_loop_threshold": 1 }' }));
    expect(message).toContain('doom_loop_threshold');
  });
});
