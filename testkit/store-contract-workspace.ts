import { describe, expect, it } from 'vitest';
import type { WorkspaceSnapshot } from '../activities/config/files.js';
import type { SessionStore } from '../activities/store/store.js';

const snapshot: WorkspaceSnapshot = {
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
export function describeWorkspaceSnapshotContract(name: string, openStore: () => Promise<SessionStore>): void {
  describe(`${name} workspace config snapshots`, () => {
    it('keeps a snapshot exactly as saved, and knows no other', async () => {
      const store = await openStore();
      await store.saveWorkspaceSnapshot('wsc_a', snapshot);
      expect(await store.workspaceSnapshot('wsc_a')).toEqual(snapshot);
      expect(await store.workspaceSnapshot('wsc_missing')).toBeUndefined();
    });

    it('saves the same id again without error (1,000 runs in one project store one row)', async () => {
      const store = await openStore();
      await Promise.all(Array.from({ length: 5 }, () => store.saveWorkspaceSnapshot('wsc_a', snapshot)));
      await store.saveWorkspaceSnapshot('wsc_a', snapshot);
      expect(await store.workspaceSnapshot('wsc_a')).toEqual(snapshot);
    });

    it('shows a snapshot saved by one process to another (a model-only worker)', async () => {
      const host = await openStore();
      const modelWorker = await openStore();
      await host.saveWorkspaceSnapshot('wsc_b', { files: {}, folders: {}, git: false });
      expect(await modelWorker.workspaceSnapshot('wsc_b')).toEqual({ files: {}, folders: {}, git: false });
    });

    it('refuses a malformed snapshot instead of storing it', async () => {
      const store = await openStore();
      await expect(store.saveWorkspaceSnapshot('wsc_bad', { files: { '/x': 1 } } as never)).rejects.toThrow();
      expect(await store.workspaceSnapshot('wsc_bad')).toBeUndefined();
    });
  });
}
