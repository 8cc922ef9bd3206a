import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expandCommand } from '../../activities/session/commands.js';
import { loadConfig, parseConfig } from '../../activities/config/load.js';
import type { LoomConfig } from '../../core/config/config.js';
import { bash } from '../../activities/tools/bash.js';
import { glob } from '../../activities/tools/glob.js';
import { NODE_WALK_BUDGET } from '../../activities/tools/search/small-trees-in-node.js';
import { looksSecret, toolEnvironment } from '../../activities/tools/shell/tool-env.js';
import { createToolContext, type ToolTestContext } from '../../testkit/model/tool-context.js';

/** A worker's environment: what a tool must see, and the secrets it must not. */
const WORKER_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: '/home/worker',
  LANG: 'C.UTF-8',
  TERM: 'xterm-256color',
  NODE_ENV: 'test',
  NPM_TOKEN_FILE: '/run/secrets/npm',
  OPENAI_API_KEY: 'sk-test-secret',
  MY_SERVICE_TOKEN: 'svc-token-secret',
  GH_TOKEN: 'gh-token-for-tools',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-value',
  AWS_BEARER_TOKEN_BEDROCK: 'bedrock-bearer-value',
  db_password: 'lowercase-secret',
  LOOM_STORE_URL: 'postgres://loom:store-pass@db/loom',
  DATABASE_URL: 'postgres://loom:store-pass@db/loom',
  // An innocent name: the config reads the provider key from it with {env:LLM_CREDENTIAL}.
  LLM_CREDENTIAL: 'cred-0123456789abcdef',
};

/** A project config as a user writes it, read through the real config parser. */
function config(shellEnv: Record<string, unknown> = {}): LoomConfig {
  const text = JSON.stringify({
    provider: {
      local: {
        options: { baseURL: 'http://127.0.0.1:1/v1', apiKey: '{env:LLM_CREDENTIAL}', headers: { 'X-Title': 'loom' } },
      },
      // A placeholder key, as local servers take: too short to count as a secret.
      ollama: { options: { baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'test' } },
    },
    shell_env: shellEnv,
  });
  return parseConfig(text, 'loom.json', WORKER_ENV);
}

const SECRET_VALUES = [
  'sk-test-secret',
  'svc-token-secret',
  'aws-secret-value',
  'bedrock-bearer-value',
  'lowercase-secret',
  'store-pass',
  'cred-0123456789abcdef',
];

describe('toolEnvironment', () => {
  it('hides credentials by name and by configured value, and passes everything else unchanged', () => {
    const env = toolEnvironment(WORKER_ENV, config());
    expect(env).toEqual({
      PATH: process.env.PATH,
      HOME: '/home/worker',
      LANG: 'C.UTF-8',
      TERM: 'xterm-256color',
      NODE_ENV: 'test',
      NPM_TOKEN_FILE: '/run/secrets/npm',
    });
  });

  it('hides a variable holding a configured auth header, or the token inside it', () => {
    const withHeader = parseConfig(
      JSON.stringify({
        provider: {
          gateway: {
            options: { baseURL: 'http://127.0.0.1:1/v1', headers: { Authorization: 'Bearer {env:GATEWAY}' } },
          },
        },
      }),
      'loom.json',
      { GATEWAY: 'gw-0123456789' },
    );
    expect(
      toolEnvironment({ GATEWAY: 'gw-0123456789', HEADER: 'Bearer gw-0123456789', LANG: 'C' }, withHeader),
    ).toEqual({ LANG: 'C' });
  });

  it('lets inherited names through, sets shell_env strings and removes shell_env nulls', () => {
    const env = toolEnvironment(
      WORKER_ENV,
      config({
        inherit: ['GH_TOKEN', 'LLM_CREDENTIAL', 'NOT_SET'],
        GREETING: 'hello',
        GIT_TOKEN: '{env:GH_TOKEN}',
        NODE_ENV: null,
      }),
    );
    expect(env).toMatchObject({
      GH_TOKEN: 'gh-token-for-tools',
      LLM_CREDENTIAL: 'cred-0123456789abcdef',
      GREETING: 'hello',
      GIT_TOKEN: 'gh-token-for-tools',
    });
    expect(env).not.toHaveProperty('NODE_ENV');
    expect(env).not.toHaveProperty('NOT_SET');
    expect(env).not.toHaveProperty('OPENAI_API_KEY');
  });

  it('applies shell_env as merged across config files, variable by variable', () => {
    const root = mkdtempSync(join(tmpdir(), 'loom-tool-env-config-'));
    try {
      mkdirSync(join(root, 'global'));
      mkdirSync(join(root, 'project'));
      writeFileSync(
        join(root, 'global', 'loom.json'),
        '{ "shell_env": { "EDITOR": "vi", "CI": "1", "inherit": ["GH_TOKEN"] } }',
      );
      writeFileSync(
        join(root, 'project', 'loom.json'),
        '{ "shell_env": { "CI": null, "GIT_TOKEN": "{env:GH_TOKEN}" } }',
      );
      const worker = { LANG: 'C', CI: 'true', GH_TOKEN: 'gh-1', LOOM_CONFIG_DIR: join(root, 'global') };
      expect(toolEnvironment(worker, loadConfig(join(root, 'project'), worker))).toEqual({
        LANG: 'C',
        LOOM_CONFIG_DIR: join(root, 'global'),
        GH_TOKEN: 'gh-1',
        EDITOR: 'vi',
        GIT_TOKEN: 'gh-1',
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('leaves the worker environment it was given alone', () => {
    const worker = { ...WORKER_ENV };
    toolEnvironment(worker, config({ NODE_ENV: null }));
    expect(worker).toEqual(WORKER_ENV);
  });

  it('reads names word by word, case-insensitively', () => {
    const secret = [
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'SOME_APIKEY',
      'GITHUB_TOKEN',
      'CLIENT_SECRET',
      'SECRET_KEY_BASE',
      'DB_PASS',
      'SMTP_PASSWD',
      'pg_password',
      'TOKEN',
      'PGPASSWORD',
      'LOOM_SERVER_TOKEN',
    ];
    // Temporal's credentials and the tracing collector's headers: a tool
    // with them could act on every run of the namespace.
    secret.push(
      'TEMPORAL_API_KEY',
      'TEMPORAL_TLS_CLIENT_KEY_DATA',
      'TEMPORAL_GRPC_META_AUTHORIZATION',
      'TEMPORAL_GRPC_META_X_TENANT',
      'OTEL_EXPORTER_OTLP_HEADERS',
    );
    const innocent = [
      'PATH',
      'HOME',
      'KEYBOARD',
      'TOKENIZERS_PARALLELISM',
      'GIT_ASKPASS',
      'PASSWORD_STORE_DIR',
      'GOOGLE_TOKEN_PATH',
      'AWS_ACCESS_KEY_ID',
      'SSH_AUTH_SOCK',
      'OPENAI_BASE_URL',
      'TEMPORAL_ADDRESS',
      'TEMPORAL_NAMESPACE',
      'TEMPORAL_TLS_CLIENT_KEY_PATH',
    ];
    expect(secret.filter((name) => !looksSecret(name))).toEqual([]);
    expect(innocent.filter(looksSecret)).toEqual([]);
  });
});

describe('what a tool process sees', () => {
  let project: string;
  const contexts: ToolTestContext[] = [];
  const contextWith = (
    config: LoomConfig,
    env: NodeJS.ProcessEnv = { ...process.env, ...WORKER_ENV, PATH: process.env.PATH },
  ) => {
    const created = createToolContext(project, { config, env });
    contexts.push(created);
    return created;
  };
  const lines = (output: string) => output.split('\n');

  beforeAll(() => {
    project = realpathSync(mkdtempSync(join(tmpdir(), 'loom-tool-env-')));
  });
  afterAll(async () => {
    await Promise.all(contexts.map((created) => created.close()));
    rmSync(project, { recursive: true, force: true });
  });

  it('bash: no credentials, PATH and the shell_env variables, and what inherit lets through', async () => {
    const { output } = await bash(
      { command: 'env', description: 'Show the environment' },
      contextWith(config({ GREETING: 'hello from shell_env', inherit: ['GH_TOKEN'] })),
    );
    for (const secret of SECRET_VALUES) expect(output).not.toContain(secret);
    expect(output).not.toMatch(/^(OPENAI_API_KEY|MY_SERVICE_TOKEN|LOOM_STORE_URL|LLM_CREDENTIAL)=/m);
    expect(lines(output)).toEqual(
      expect.arrayContaining([
        `PATH=${process.env.PATH}`,
        'HOME=/home/worker',
        'GREETING=hello from shell_env',
        'GH_TOKEN=gh-token-for-tools',
      ]),
    );
  });

  it('!`env` in a command: the same environment', async () => {
    const context = contextWith(config({ GREETING: 'hello from shell_env', inherit: ['GH_TOKEN'] }));
    const { prompt } = await expandCommand('env', { template: 'The environment:\n!`env`' }, '', {
      directory: project,
      env: context.env,
      config: context.config,
    });
    for (const secret of SECRET_VALUES) expect(prompt).not.toContain(secret);
    expect(lines(prompt)).toEqual(
      expect.arrayContaining([
        `PATH=${process.env.PATH}`,
        'GREETING=hello from shell_env',
        'GH_TOKEN=gh-token-for-tools',
      ]),
    );
  });

  describe('ripgrep', () => {
    const secretName = 'LOOM_TEST_RG_TOKEN';
    afterEach(() => delete process.env[secretName]);

    it('runs with the worker’s environment without credentials, and nothing of shell_env', async () => {
      // A stand-in for rg that answers like ripgrep and records its environment; a tree bigger
      // than the walk budget sends the search to it.
      const tree = realpathSync(mkdtempSync(join(tmpdir(), 'loom-tool-env-rg-')));
      const dump = join(tree, 'rg-env.txt');
      const rg = join(tree, 'fake-rg');
      writeFileSync(
        rg,
        `#!/bin/sh\nif [ "$1" = --version ]; then echo 'ripgrep 14.1.0'; exit 0; fi\nenv > '${dump}'\n`,
      );
      chmodSync(rg, 0o755);
      for (let i = 0; i <= NODE_WALK_BUDGET; i++) writeFileSync(join(tree, `f${i}.txt`), '');
      process.env[secretName] = 'rg-secret-value';
      const context = createToolContext(tree, {
        env: { ...process.env, LOOM_RIPGREP: rg, RIPGREP_CONFIG_PATH: join(tree, 'ripgreprc') },
        config: { shell_env: { GREETING: 'hello rg', LD_PRELOAD: join(tree, 'evil.so') } },
      });
      try {
        await glob({ pattern: '**/*.md' }, context);
        const seen = readFileSync(dump, 'utf8');
        expect(seen).not.toContain('rg-secret-value');
        expect(lines(seen)).toEqual(expect.arrayContaining([`PATH=${process.env.PATH}`]));
        // ripgrep runs unconfined in the worker: the project's configuration must not reach it.
        expect(seen).not.toContain('GREETING');
        expect(seen).not.toContain('LD_PRELOAD');
        expect(seen).not.toContain('RIPGREP_CONFIG_PATH');
      } finally {
        await context.close();
        rmSync(tree, { recursive: true, force: true });
      }
    });
  });
});
