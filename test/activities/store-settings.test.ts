import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../activities/config/load.js';
import { openSessionStore } from '../../activities/store/open.js';
import { clientSettings, storeUrlFrom, webUrlFrom } from '../../client/settings.js';
import { freePort } from '../../testkit/network/free-port.js';

let root: string;
/** The user's global config folder (`LOOM_CONFIG_DIR`). */
let globalDir: string;
/** The folder the CLI runs in. */
let project: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loom-store-settings-'));
  globalDir = join(root, 'global');
  project = join(root, 'project');
  mkdirSync(globalDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

function writeConfig(folder: string, config: unknown, name = 'loom.json'): string {
  const file = join(folder, name);
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
  return file;
}

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  LOOM_CONFIG_DIR: globalDir,
  LOOM_DATA_DIR: join(root, 'data'),
  ...extra,
});

describe('the session store URL', () => {
  it('is unset (SQLite in the data folder) when neither LOOM_STORE_URL nor any config names one', () => {
    writeConfig(project, { model: 'openai/gpt-4o' });
    expect(storeUrlFrom(env(), project)).toBeUndefined();
    expect(clientSettings(env(), project)).toMatchObject({
      storeUrl: undefined,
      storeUrlSource: undefined,
      dataDir: join(root, 'data'),
    });
  });

  it('comes from store.url of the global config, which the project folder overrides', () => {
    const globalFile = writeConfig(globalDir, { store: { url: 'postgres://global-host/loom' } });
    expect(storeUrlFrom(env(), project)).toEqual({
      url: 'postgres://global-host/loom',
      source: `store.url in ${globalFile}`,
    });

    const projectFile = writeConfig(project, { store: { url: 'postgresql://project-host/loom' } }, 'opencode.jsonc');
    expect(clientSettings(env(), project)).toMatchObject({
      storeUrl: 'postgresql://project-host/loom',
      storeUrlSource: `store.url in ${projectFile}`,
    });
  });

  it('takes LOOM_STORE_URL over any config, without reading the config', () => {
    writeConfig(globalDir, { store: { url: 'postgres://global-host/loom' } });
    writeConfig(project, '{ "store": { "url": ');
    expect(storeUrlFrom(env({ LOOM_STORE_URL: 'postgres://env-host/loom' }), project)).toEqual({
      url: 'postgres://env-host/loom',
      source: 'LOOM_STORE_URL',
    });
  });

  it('substitutes {env:VAR}, and calls an empty result an error naming the file', () => {
    const file = writeConfig(project, { store: { url: '{env:TEAM_DB_URL}' } });
    expect(storeUrlFrom(env({ TEAM_DB_URL: 'postgres://team-db/loom' }), project)?.url).toBe('postgres://team-db/loom');
    expect(() => storeUrlFrom(env(), project)).toThrow(ConfigError);
    expect(() => storeUrlFrom(env(), project)).toThrow(
      `${file}: store.url is empty (if it is {env:…}, that variable is not set)`,
    );
  });

  it('reports a config error naming the file and key', () => {
    const file = writeConfig(project, { store: { uri: 'postgres://typo/loom' } });
    expect(() => clientSettings(env(), project)).toThrow(ConfigError);
    expect(() => clientSettings(env(), project)).toThrow(
      new RegExp(`^${escape(file)}: invalid configuration\\n  store: .*uri`),
    );

    writeConfig(project, { store: { url: 42 } });
    expect(() => clientSettings(env(), project)).toThrow(
      new RegExp(`^${escape(file)}: invalid configuration\\n  store\\.url: `),
    );
  });

  it('is not read from markdown agents, so a broken agent file does not stop the CLI finding its store', () => {
    mkdirSync(join(project, '.loom', 'agent'), { recursive: true });
    writeFileSync(join(project, '.loom', 'agent', 'broken.md'), '---\nmode: nonsense\n---\nprompt');
    const file = writeConfig(project, { store: { url: 'postgres://db/loom' } });
    expect(() => loadConfig(project, env())).toThrow(ConfigError);
    expect(storeUrlFrom(env(), project)).toEqual({ url: 'postgres://db/loom', source: `store.url in ${file}` });
  });
});

describe('opening the store a URL names', () => {
  it('names LOOM_STORE_URL or the config file and key when the scheme is not PostgreSQL', async () => {
    await expect(
      openSessionStore(clientSettings(env({ LOOM_STORE_URL: 'mysql://u:pw@db/loom' }), project)),
    ).rejects.toThrow('LOOM_STORE_URL must start with postgres:// or postgresql:// (it starts with "mysql…")');
    const file = writeConfig(project, { store: { url: 'mysql://u:pw@db/loom' } });
    const error = await openSessionStore(clientSettings(env(), project)).catch((e: Error) => e);
    expect((error as Error).message).toBe(
      `store.url in ${file} must start with postgres:// or postgresql:// (it starts with "mysql…")`,
    );
    expect((error as Error).message).not.toContain('pw');
  });

  it('names the config file and key when the server does not answer', async () => {
    const port = await freePort();
    const file = writeConfig(project, { store: { url: `postgres://loom:s3cret@127.0.0.1:${port}/loomdb` } });
    const error = await openSessionStore(clientSettings(env(), project)).catch((e: Error) => e);
    expect((error as Error).message).toContain(
      `PostgreSQL database "loomdb" on host 127.0.0.1:${port} (store.url in ${file}): `,
    );
    expect((error as Error).message).not.toContain('s3cret');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('the web view address (LOOM_WEB_URL)', () => {
  it('is unset unless given, and loses a trailing slash', () => {
    expect(webUrlFrom({})).toBeUndefined();
    expect(webUrlFrom({ LOOM_WEB_URL: 'https://loom.example.com/' })).toBe('https://loom.example.com');
  });

  it('refuses anything but an http(s) address, naming the variable', () => {
    for (const value of ['loom.example.com', 'ftp://loom.example.com', 'javascript:alert(1)']) {
      expect(() => webUrlFrom({ LOOM_WEB_URL: value })).toThrow(
        /LOOM_WEB_URL must be an http:\/\/ or https:\/\/ address/,
      );
    }
  });
});
