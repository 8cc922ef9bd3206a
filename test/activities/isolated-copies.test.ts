import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectIsolatedCopies } from '../../activities/batch/isolation-activities.js';
import { applyChanges } from '../../activities/snapshot/apply-changes.js';
import { batchSnapshots, materialiseCopy, snapshotCopy, snapshotProject } from '../../activities/snapshot/copies.js';
import type { BatchRecord } from '../../core/batch/batch.js';

let root: string;
let project: string;
let folder: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loom-copies-'));
  project = join(root, 'project');
  folder = join(root, 'data', 'isolated', 'bat_test');
  mkdirSync(project);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(base: string, path: string, content: string): void {
  mkdirSync(dirname(join(base, path)), { recursive: true });
  writeFileSync(join(base, path), content);
}
const read = (base: string, path: string) => readFileSync(join(base, path), 'utf8');
const lines = (...values: string[]) => values.map((value) => `${value}\n`).join('');

describe('copies of a project for isolated batch tasks', () => {
  it('hold the files of the moment, committed or not, and git in a copy shows only what its task changed', async () => {
    execFileSync('git', ['init', '--quiet', project]);
    write(project, '.gitignore', 'node_modules/\n');
    write(project, 'a.txt', 'committed\n');
    execFileSync('git', ['-C', project, 'add', '.']);
    execFileSync('git', ['-C', project, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'one']);
    write(project, 'a.txt', 'uncommitted\n');
    write(project, 'new.txt', 'not yet added\n');
    write(project, 'node_modules/x.js', 'ignored\n');

    const base = await snapshotProject(folder, project);
    const copy = await materialiseCopy(folder, base, 0, project);
    expect(read(copy, 'a.txt')).toBe('uncommitted\n');
    expect(read(copy, 'new.txt')).toBe('not yet added\n');
    expect(existsSync(join(copy, 'node_modules'))).toBe(false);
    expect(execFileSync('git', ['-C', copy, 'status', '--porcelain'], { encoding: 'utf8' })).toBe('');

    write(copy, 'a.txt', 'by the task\n');
    rmSync(join(copy, 'new.txt'));
    expect(execFileSync('git', ['-C', copy, 'status', '--porcelain'], { encoding: 'utf8' })).toBe(
      ' M a.txt\n D new.txt\n',
    );
    const { files } = await snapshotCopy(folder, base, 0);
    expect(files).toEqual([
      { path: 'a.txt', status: 'modified' },
      { path: 'new.txt', status: 'deleted' },
    ]);
    expect(read(project, 'a.txt')).toBe('uncommitted\n');

    // Another attempt starts again from the snapshot.
    const again = await materialiseCopy(folder, base, 0, project);
    expect(read(again, 'a.txt')).toBe('uncommitted\n');
    expect((await snapshotCopy(folder, base, 0)).files).toEqual([]);
  });

  it('apply cleanly where the project is as it was, merge text changed on both sides, and report what conflicts', async () => {
    write(project, 'same.txt', 'untouched\n');
    write(project, 'both.txt', lines('1', '2', '3', '4', '5', '6', '7', '8'));
    write(project, 'clash.txt', 'original\n');
    const base = await snapshotProject(folder, project);
    const copy = await materialiseCopy(folder, base, 0, project);
    write(copy, 'same.txt', 'by the task\n');
    write(copy, 'both.txt', lines('1 by the task', '2', '3', '4', '5', '6', '7', '8'));
    write(copy, 'clash.txt', 'by the task\n');
    write(copy, 'made.txt', 'made by the task\n');
    const { tree, files } = await snapshotCopy(folder, base, 0);
    write(project, 'both.txt', lines('1', '2', '3', '4', '5', '6', '7', '8 by the person'));
    write(project, 'clash.txt', 'by the person\n');

    const git = batchSnapshots(folder, project, 'apply');
    const paths = files.map((file) => file.path);
    expect(await applyChanges(git, base, tree, paths)).toEqual({
      applied: ['made.txt', 'same.txt'],
      merged: ['both.txt'],
      unchanged: [],
      conflicts: ['clash.txt'],
    });
    expect(read(project, 'same.txt')).toBe('by the task\n');
    expect(read(project, 'made.txt')).toBe('made by the task\n');
    expect(read(project, 'both.txt')).toBe(lines('1 by the task', '2', '3', '4', '5', '6', '7', '8 by the person'));
    expect(read(project, 'clash.txt')).toBe('by the person\n');
    expect((await applyChanges(git, base, tree, paths)).unchanged).toEqual(['both.txt', 'made.txt', 'same.txt']);
  });
});

describe('collecting isolated copies', () => {
  it('deletes those of batches gone, let go, or ended a week ago, and keeps running and recent ones', async () => {
    const dataDir = join(root, 'data');
    const day = 24 * 60 * 60 * 1000;
    const now = Date.now();
    const batches = new Map<string, BatchRecord>();
    const batch = (id: string, status: BatchRecord['status'], updated: number, removed?: number): void => {
      batches.set(id, {
        id,
        source: 'tasks.jsonl',
        sourceBytes: 1,
        total: 1,
        directory: project,
        agent: 'build',
        concurrency: 1,
        retries: 0,
        status,
        isolation: { folder: join(dataDir, 'isolated', id), ...(removed ? { removed } : {}) },
        time: { created: updated, updated },
      });
      mkdirSync(join(dataDir, 'isolated', id, 'tasks', '0'), { recursive: true });
    };
    batch('bat_running', 'running', now - 30 * day);
    batch('bat_recent', 'completed', now - day);
    batch('bat_old', 'completed', now - 8 * day);
    batch('bat_discarded', 'cancelled', now, now);
    mkdirSync(join(dataDir, 'isolated', 'bat_gone'), { recursive: true });
    const store = {
      getBatch: async (id: string) => batches.get(id),
      saveBatch: async (record: BatchRecord) => void batches.set(record.id, record),
    };

    expect((await collectIsolatedCopies(store, dataDir, now)).sort()).toEqual(['bat_discarded', 'bat_gone', 'bat_old']);
    expect(readdirSync(join(dataDir, 'isolated')).sort()).toEqual(['bat_recent', 'bat_running']);
    expect(batches.get('bat_old')?.isolation?.removed).toBe(now);
  });
});
