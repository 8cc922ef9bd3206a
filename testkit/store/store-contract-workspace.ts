import { describe, expect, it } from 'vitest';
import type { WorkspaceConfigRecord } from '../../activities/config/files.js';
import type { SessionStore } from '../../activities/store/store.js';

const snapshot: WorkspaceConfigRecord = {
  files: {
    '/project/loom.json':
      '{ "model": "local/qwen", "provider": { "local": { "options": { "apiKey": "{env:LOCAL_KEY}" } } } }',
    '/project/.loom/agent/review/security.md':
      '---\nmode: subagent\n---\nYou look for injection bugs: "quotes", \\backslashes\\, ünïcode.',
  },
  folders: { '/project/.loom/agent': ['review'], '/project/.loom/agent/review': ['security.md'] },
  git: true,
};

/** The project part of workspaces' configuration, kept by content-derived id for model calls on any worker. */
export function describeWorkspaceConfigContract(name: string, openStore: () => Promise<SessionStore>): void {
  describe(`${name} workspace config snapshots`, () => {
    it('keeps a snapshot exactly as saved, and knows no other', async () => {
      const store = await openStore();
      await store.saveWorkspaceConfig('wsc_a', snapshot);
      expect(await store.getWorkspaceConfig('wsc_a')).toEqual(snapshot);
      expect(await store.getWorkspaceConfig('wsc_missing')).toBeUndefined();
    });

    it('saves the same id again without error (1,000 runs in one project store one row)', async () => {
      const store = await openStore();
      await Promise.all(Array.from({ length: 5 }, () => store.saveWorkspaceConfig('wsc_a', snapshot)));
      await store.saveWorkspaceConfig('wsc_a', snapshot);
      expect(await store.getWorkspaceConfig('wsc_a')).toEqual(snapshot);
    });

    it('shows a snapshot saved by one process to another (a model-only worker)', async () => {
      const host = await openStore();
      const modelWorker = await openStore();
      await host.saveWorkspaceConfig('wsc_b', { files: {}, folders: {}, git: false });
      expect(await modelWorker.getWorkspaceConfig('wsc_b')).toEqual({ files: {}, folders: {}, git: false });
    });

    it('refuses a malformed snapshot instead of storing it', async () => {
      const store = await openStore();
      await expect(store.saveWorkspaceConfig('wsc_bad', { files: { '/x': 1 } } as never)).rejects.toThrow();
      expect(await store.getWorkspaceConfig('wsc_bad')).toBeUndefined();
    });
  });
}

const trustedFiles = {
  files: { '/project/loom.json': '{}' },
  folders: {},
  plugins: { '/project/.loom/plugins/p.js': 'ab12' },
};
const changedFiles = { files: { '/project/loom.json': '{"sandbox": {"enabled": false}}' }, folders: {} };

/** What a person trusts of a folder's config files, and the change an agent's work made that waits for them. */
export function describeConfigTrustContract(name: string, openStore: () => Promise<SessionStore>): void {
  describe(`${name} config trust`, () => {
    it('trusts the first files it is given, and only those, until told otherwise', async () => {
      const store = await openStore();
      const directory = `/project-${Math.random().toString(36).slice(2)}`;
      expect(await store.configTrust(directory)).toBeUndefined();
      expect(await store.trustConfig(directory, { id: 'cfg_a', record: trustedFiles, time: 1 }, 'first')).toBe(true);
      expect(await store.trustConfig(directory, { id: 'cfg_b', record: changedFiles, time: 2 }, 'first')).toBe(false);
      expect(await store.configTrust(directory)).toEqual({
        directory,
        trustedId: 'cfg_a',
        trusted: trustedFiles,
        time: 1,
      });
    });

    it("keeps a change that waits from a person's edit taken at their run, and clears it when they confirm", async () => {
      const store = await openStore();
      const directory = `/project-${Math.random().toString(36).slice(2)}`;
      await store.trustConfig(directory, { id: 'cfg_a', record: trustedFiles, time: 1 }, 'first');
      const change = { id: 'cfg_b', files: ['/project/loom.json'], sessionId: 'ses_agent', time: 5 };
      // A person who trusted something else meanwhile decided already: the mark does not land.
      expect(await store.markConfigChanged(directory, 'cfg_other', change)).toBe(false);
      expect(await store.markConfigChanged(directory, 'cfg_a', change)).toBe(true);
      expect((await store.configTrust(directory))?.pending).toEqual(change);
      expect(await store.trustConfig(directory, { id: 'cfg_c', record: changedFiles, time: 6 }, 'unless-pending')).toBe(
        false,
      );
      expect((await store.configTrust(directory))?.trustedId).toBe('cfg_a');
      expect(await store.trustConfig(directory, { id: 'cfg_b', record: changedFiles, time: 7 }, 'always')).toBe(true);
      expect(await store.configTrust(directory)).toEqual({
        directory,
        trustedId: 'cfg_b',
        trusted: changedFiles,
        time: 7,
      });
      expect(await store.trustConfig(directory, { id: 'cfg_a', record: trustedFiles, time: 8 }, 'unless-pending')).toBe(
        true,
      );
    });

    it('shares what is trusted between processes, each folder on its own', async () => {
      const person = await openStore();
      const worker = await openStore();
      const directory = `/project-${Math.random().toString(36).slice(2)}`;
      await person.trustConfig(directory, { id: 'cfg_a', record: trustedFiles, time: 1 }, 'always');
      expect((await worker.configTrust(directory))?.trusted).toEqual(trustedFiles);
      expect(await worker.configTrust(`${directory}/sub`)).toBeUndefined();
    });
  });
}
