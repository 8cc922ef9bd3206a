import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../activities/config/load.js';

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
    expect(load()).toEqual({ model: 'local/qwen', provider: { local: { options: { baseURL: 'http://localhost:1234/v1' } } } });
  });

  it('substitutes {env:VAR} from the env it is given, and an unset variable with nothing', () => {
    write(join(project, 'loom.json'), '{ "provider": { "local": { "options": { "apiKey": "{env:LOCAL_KEY}", "headers": { "x": "a{env:UNSET_VAR}b" } } } } }');
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
      JSON.stringify({ provider: { local: { options: { baseURL: 'http://localhost:1234/v1', apiKey: 'global' } }, other: { name: 'Other' } } }),
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
    const file = write(join(project, 'loom.json'), '{ "provider": { "local": { "options": { "baseURL": "not a url" } } } }');
    const error = configError(() => load());
    expect(error.message).toContain(file);
    expect(error.message).toContain('provider.local.options.baseURL');
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
});
