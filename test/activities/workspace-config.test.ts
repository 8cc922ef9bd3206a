import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordedFiles } from '../../activities/config/files.js';
import { ConfigError, configLayers, loadConfig } from '../../activities/config/load.js';
import { recordWorkspaceConfig, workspaceConfig, workspaceConfigId } from '../../activities/config/workspace-config.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import { write } from '../../testkit/files.js';

let root: string;
/** The worker's own global config folder (`LOOM_CONFIG_DIR`): never part of a snapshot. */
let globalDir: string;
/** root/work/project: `root/work` holds config too, as an ancestor folder. */
let project: string;
let env: NodeJS.ProcessEnv;

/**
 * A project configured in every way the traversal knows: JSON files in the project and
 * an ancestor, markdown agents, modes and commands in nested folders.
 */
function writeProject(): void {
  write(
    join(root, 'work', 'loom.json'),
    JSON.stringify({ small_model: 'scripted/small', agent: { build: { temperature: 0.1 } } }),
  );
  write(
    join(project, 'opencode.jsonc'),
    `{
      // the project's own model and provider
      "model": "local/qwen",
      "provider": { "local": { "options": { "baseURL": "http://localhost:1234/v1", "apiKey": "{env:LOCAL_KEY}" } } },
    }`,
  );
  write(join(project, '.opencode', 'opencode.json'), JSON.stringify({ doom_loop_threshold: 5 }));
  write(
    join(project, '.opencode', 'agent', 'review', 'security.md'),
    '---\ndescription: Reviews for security\nmode: subagent\n---\nYou look for injection bugs.',
  );
  write(
    join(project, '.loom', 'agents', 'writer.md'),
    '---\ndescription: "Writes docs for {env:DOC_TEAM}"\nmode: primary\n---\nYou write the docs of the ACME project.',
  );
  write(join(project, '.loom', 'mode', 'terse.md'), 'Answer in one line.');
  write(
    join(project, '.loom', 'commands', 'git', 'ship.md'),
    '---\ndescription: Ships it\nagent: build\n---\nShip $ARGUMENTS now.',
  );
  write(join(project, '.loom', 'commands', 'notes.txt'), 'not a command');
  write(join(globalDir, 'agent', 'mine.md'), '---\ndescription: The user own agent\n---\nYou are mine.');
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loom-wsc-'));
  globalDir = join(root, 'global');
  project = join(root, 'work', 'project');
  mkdirSync(project, { recursive: true });
  env = { LOOM_CONFIG_DIR: globalDir, LOCAL_KEY: 'key-on-host', DOC_TEAM: 'team-on-host' };
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('workspace config snapshots', () => {
  it('loads from a snapshot exactly the config the disk gives, layer by layer, once the project is gone', () => {
    writeProject();
    const fromDisk = loadConfig(project, env);
    const layersFromDisk = configLayers(project, env);
    const jsonLayersFromDisk = configLayers(project, env, { markdown: false });
    const { config, record: snapshot } = recordWorkspaceConfig(project, env);
    expect(config).toEqual(fromDisk);
    expect(fromDisk.agent?.writer?.prompt).toBe('You write the docs of the ACME project.');
    expect(fromDisk.agent?.['review/security']).toMatchObject({ mode: 'subagent' });
    expect(Object.keys(fromDisk.command ?? {})).toEqual(['git/ship']);

    rmSync(join(root, 'work'), { recursive: true });
    expect(loadConfig(project, env).agent?.writer).toBeUndefined();
    expect(loadConfig(project, env, recordedFiles(snapshot))).toEqual(fromDisk);
    expect(configLayers(project, env, { project: recordedFiles(snapshot) })).toEqual(layersFromDisk);
    expect(configLayers(project, env, { project: recordedFiles(snapshot), markdown: false })).toEqual(
      jsonLayersFromDisk,
    );
  });

  it('keeps the worker its own global folder and LOOM_CONFIG_CONTENT, and only the project in the snapshot', () => {
    writeProject();
    const { record: snapshot } = recordWorkspaceConfig(project, env);
    expect(Object.keys(snapshot.files).some((path) => path.startsWith(globalDir))).toBe(false);
    expect(Object.keys(snapshot.files).some((path) => path.endsWith('notes.txt'))).toBe(false);

    // Another worker: another global folder, its own LOOM_CONFIG_CONTENT.
    const otherGlobal = join(root, 'other-global');
    write(join(otherGlobal, 'loom.json'), JSON.stringify({ auto_title: false }));
    const config = loadConfig(
      project,
      { LOOM_CONFIG_DIR: otherGlobal, LOOM_CONFIG_CONTENT: '{"subagent_depth": 3}' },
      recordedFiles(snapshot),
    );
    expect(config.agent?.mine).toBeUndefined();
    expect(config).toMatchObject({ auto_title: false, subagent_depth: 3, model: 'local/qwen' });
  });

  it('stores {env:…} references unsubstituted, and fills them in from the environment of the worker that loads it', () => {
    writeProject();
    const { record: snapshot } = recordWorkspaceConfig(project, env);
    const stored = JSON.stringify(snapshot);
    expect(stored).toContain('{env:LOCAL_KEY}');
    expect(stored).toContain('{env:DOC_TEAM}');
    expect(stored).not.toContain('key-on-host');
    expect(stored).not.toContain('team-on-host');

    const elsewhere = loadConfig(
      project,
      { LOOM_CONFIG_DIR: globalDir, LOCAL_KEY: 'key-of-model-worker' },
      recordedFiles(snapshot),
    );
    expect(elsewhere.provider?.local?.options?.apiKey).toBe('key-of-model-worker');
    expect(elsewhere.agent?.writer?.description).toBe('Writes docs for ');
  });

  it('refuses a secret variable in text a model reads, naming the file, the key and the variable', () => {
    writeProject();
    write(join(project, '.loom', 'agents', 'leaky.md'), '---\ndescription: "Knows {env:DOC_TOKEN}"\n---\nLeak it.');
    expect(() => recordWorkspaceConfig(project, env)).toThrow(
      `${join(project, '.loom', 'agents', 'leaky.md')}: agent.leaky.description names {env:DOC_TOKEN}, a secret by its name`,
    );
    write(join(project, '.loom', 'agents', 'leaky.md'), '---\ndescription: Knows things\n---\nLeak it.');
    write(
      join(project, 'loom.json'),
      JSON.stringify({ command: { ship: { template: 'Ship with {env:DEPLOY_API_KEY}' } } }),
    );
    expect(() => recordWorkspaceConfig(project, env)).toThrow(
      `${join(project, 'loom.json')}: command.ship.template names {env:DEPLOY_API_KEY}`,
    );
  });

  it('gives the same project the same id, and a changed project another', () => {
    writeProject();
    const first = recordWorkspaceConfig(project, env).record;
    const again = recordWorkspaceConfig(project, env).record;
    expect(workspaceConfigId(first)).toMatch(/^wsc_[0-9a-f]{24}$/);
    expect(workspaceConfigId(again)).toBe(workspaceConfigId(first));
    // Key order does not matter (PostgreSQL's JSON, say, may hand them back in another order).
    const reordered = {
      entries: first.entries,
      git: first.git,
      folders: first.folders,
      files: Object.fromEntries(Object.entries(first.files).reverse()),
    };
    expect(workspaceConfigId(reordered)).toBe(workspaceConfigId(first));

    write(
      join(project, '.loom', 'agents', 'writer.md'),
      '---\nmode: primary\n---\nYou write the docs of another project.',
    );
    expect(workspaceConfigId(recordWorkspaceConfig(project, env).record)).not.toBe(workspaceConfigId(first));
    // A worker's own secrets are not part of it.
    const current = workspaceConfigId(recordWorkspaceConfig(project, env).record);
    expect(workspaceConfigId(recordWorkspaceConfig(project, { ...env, LOCAL_KEY: 'rotated' }).record)).toBe(current);
  });

  it('records whether the directory is a git repository', () => {
    expect(recordWorkspaceConfig(project, env).record.git).toBe(false);
    mkdirSync(join(project, '.git'));
    expect(recordWorkspaceConfig(project, env).record.git).toBe(true);
  });
});

describe('workspaceConfig (what model-side activities load)', () => {
  it('reads the snapshot from the store by id, without the project on disk; reads the disk without an id', async () => {
    writeProject();
    const store = new SqliteSessionStore(join(root, 'data', 'loom.db'));
    try {
      mkdirSync(join(project, '.git'));
      const { config, record: snapshot } = recordWorkspaceConfig(project, env);
      const id = workspaceConfigId(snapshot);
      await store.saveWorkspaceConfig(id, snapshot);
      rmSync(join(root, 'work'), { recursive: true });

      const loaded = await workspaceConfig(store, env, { directory: project, workspaceConfigId: id });
      // What the project held, for a small model's prompt: hidden names left out.
      expect(loaded).toEqual({
        config,
        project: { files: snapshot.files, folders: snapshot.folders },
        git: true,
        entries: ['opencode.jsonc'],
      });

      await expect(
        workspaceConfig(store, env, { directory: project, workspaceConfigId: 'wsc_000000000000000000000000' }),
      ).rejects.toThrow(ConfigError);
      await expect(
        workspaceConfig(store, env, { directory: project, workspaceConfigId: 'wsc_000000000000000000000000' }),
      ).rejects.toThrow(/wsc_000000000000000000000000 is not in the session store/);
    } finally {
      await store.close();
    }
  });
});
