// Which config files a run uses: what a person trusts, against what the disk says now and who
// starts the run. A real SQLite store and real folders; the decisions of activities/config/trust.ts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readProjectConfig } from '../../activities/config/project-config.js';
import {
  ConfigChangedAgainError,
  configStanding,
  noticeConfigChange,
  projectConfigForRun,
  trustProjectConfig,
} from '../../activities/config/trust.js';
import { loadPlugins } from '../../activities/plugins/load.js';
import { PluginError } from '../../activities/plugins/types.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';

let root: string;
let store: SqliteSessionStore;
let projects = 0;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'loom-trust-'));
  store = new SqliteSessionStore(join(root, 'loom.db'));
});
afterAll(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

function project(files: Record<string, string>) {
  const directory = join(root, `project-${++projects}`);
  for (const [path, text] of Object.entries(files)) put(directory, path, text);
  return { directory, env: { LOOM_CONFIG_DIR: join(root, 'no-global') } };
}

function put(directory: string, path: string, text: string): void {
  mkdirSync(join(directory, path, '..'), { recursive: true });
  writeFileSync(join(directory, path), text);
}

const byPerson = { byPerson: true, sessionId: 'ses_person' };
const byAgent = { byPerson: false, sessionId: 'ses_child' };
const text = (snapshot: { files: Record<string, string> }, directory: string) =>
  snapshot.files[join(directory, 'loom.json')];

describe('the config files a run uses', () => {
  it("takes what the first run finds, and a person's own edits at the runs they start", async () => {
    const { directory, env } = project({ 'loom.json': '{"model": "a/one"}' });
    expect(text((await projectConfigForRun(store, directory, env, byAgent)).record, directory)).toContain('a/one');
    put(directory, 'loom.json', '{"model": "a/two"}');
    const run = await projectConfigForRun(store, directory, env, byPerson);
    expect(run.unconfirmed).toBeUndefined();
    expect(text(run.record, directory)).toContain('a/two');
    expect((await store.configTrust(directory))?.trustedId).toBe(readProjectConfig(directory, env).id);
  });

  it("keeps to the trusted files after a change in an agent's work, until a person confirms it", async () => {
    const { directory, env } = project({ 'loom.json': '{}' });
    await projectConfigForRun(store, directory, env, byPerson);
    const started = readProjectConfig(directory, env).id;
    put(directory, '.opencode/agent/build.md', '---\nsandbox:\n  enabled: false\n---\nBuild.');
    const change = await noticeConfigChange(store, directory, env, { sessionId: 'ses_agent', runConfigId: started });
    expect(change).toMatchObject({ files: [join(directory, '.opencode/agent/build.md')], sessionId: 'ses_agent' });

    for (const starter of [byPerson, byAgent]) {
      const run = await projectConfigForRun(store, directory, env, starter);
      expect(Object.keys(run.record.files)).toEqual([join(directory, 'loom.json')]);
      expect(run.unconfirmed).toMatchObject({ sessionId: 'ses_agent' });
    }
    expect(await configStanding(store, directory, env)).toMatchObject({ usedAsIs: false });

    await trustProjectConfig(store, directory, env, readProjectConfig(directory, env).id);
    const trusted = await projectConfigForRun(store, directory, env, byAgent);
    expect(trusted.unconfirmed).toBeUndefined();
    expect(Object.keys(trusted.record.files)).toContain(join(directory, '.opencode/agent/build.md'));
  });

  it("leaves a change found at an agent's run waiting: a subagent started in the step that wrote it", async () => {
    const { directory, env } = project({ 'loom.json': '{}' });
    await projectConfigForRun(store, directory, env, byPerson);
    // Written and not noticed yet (the write's own check runs after it), when the child starts.
    put(directory, 'loom.json', '{"permission": {"*": "allow"}}');
    const child = await projectConfigForRun(store, directory, env, byAgent);
    expect(text(child.record, directory)).toBe('{}');
    expect(child.unconfirmed).toMatchObject({ files: [join(directory, 'loom.json')], sessionId: 'ses_child' });
    // So the person's next run does not take it as theirs either.
    expect((await projectConfigForRun(store, directory, env, byPerson)).unconfirmed).toBeDefined();
  });

  it("takes a person's edit again once the agent's change is put back", async () => {
    const { directory, env } = project({ 'loom.json': '{}' });
    await projectConfigForRun(store, directory, env, byPerson);
    put(directory, '.loom/loom.json', '{"sandbox": {"enabled": false}}');
    await noticeConfigChange(store, directory, env, { sessionId: 'ses_agent' });
    rmSync(join(directory, '.loom'), { recursive: true });
    put(directory, 'loom.json', '{"model": "a/mine"}');
    const run = await projectConfigForRun(store, directory, env, byPerson);
    expect(run.unconfirmed).toBeUndefined();
    expect(text(run.record, directory)).toContain('a/mine');
  });

  it('trusts only the files a person was shown', async () => {
    const { directory, env } = project({ 'loom.json': '{}' });
    await projectConfigForRun(store, directory, env, byPerson);
    put(directory, 'loom.json', '{"model": "a/shown"}');
    const shown = readProjectConfig(directory, env).id;
    put(directory, 'loom.json', '{"model": "a/swapped"}');
    await expect(trustProjectConfig(store, directory, env, shown)).rejects.toThrow(ConfigChangedAgainError);
    await expect(trustProjectConfig(store, directory, env, shown)).rejects.toThrow(
      'changed again since they were shown',
    );
  });

  it('loads a plugin of the project only as the trusted files saw its code', async () => {
    const plugin = 'export default async () => ({});\n';
    const { directory, env } = project({ '.loom/plugins/guard.js': plugin });
    const seen = readProjectConfig(directory, env).record;
    expect(Object.values(seen.plugins ?? {})).toHaveLength(1);
    expect((await loadPlugins(directory, env, seen)).list).toHaveLength(1);
    put(directory, '.loom/plugins/guard.js', `${plugin}// changed\n`);
    const refused = await loadPlugins(directory, env, seen).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PluginError);
    expect((refused as Error).message).toBe(
      ".loom/plugins/guard.js: changed since a person last trusted this project's configuration, so it is not loaded. Review it, then run `loom config trust` in the project (or answer the prompt of `loom run`).",
    );
    // A plugin the snapshot never listed is not loaded at all.
    put(directory, '.loom/plugins/new.js', plugin);
    put(directory, '.loom/plugins/guard.js', plugin);
    expect((await loadPlugins(directory, env, seen)).list.map((loaded) => loaded.name)).toEqual([
      '.loom/plugins/guard.js',
    ]);
  });
});
