import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changedFiles } from '../../activities/snapshot/changes.js';
import { restoreFiles } from '../../activities/snapshot/restore.js';
import { revertSession, unrevertSession } from '../../activities/snapshot/session-revert.js';
import { sessionShadow } from '../../activities/snapshot/step-activities.js';
import { trackFiles } from '../../activities/snapshot/track.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';

let root: string;
let project: string;
let dataDir: string;
let store: SqliteSessionStore;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loom-revert-'));
  project = join(root, 'project');
  dataDir = join(root, 'data');
  mkdirSync(project);
  mkdirSync(dataDir);
  store = new SqliteSessionStore(join(dataDir, 'loom.db'));
});
afterEach(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

function write(path: string, content: string): void {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), content);
}
const read = (path: string) =>
  existsSync(join(project, path)) ? readFileSync(join(project, path), 'utf8') : undefined;

/** A session with one turn whose step ran `change` between two snapshots, as the loop records it. */
async function sessionWithStep(id: string, change: () => void): Promise<void> {
  const now = Date.now();
  await store.saveSession({
    id,
    title: 't',
    agent: 'build',
    model: 'm/m',
    directory: project,
    status: 'idle',
    time: { created: now, updated: now },
  });
  const prompt = `msg_${id}_1`;
  const answer = `msg_${id}_2`;
  await store.saveMessage({
    id: prompt,
    sessionID: id,
    role: 'user',
    agent: 'build',
    model: 'm/m',
    time: { created: now },
  });
  await store.saveMessage({
    id: answer,
    sessionID: id,
    role: 'assistant',
    parentID: prompt,
    agent: 'build',
    model: 'm/m',
    step: 1,
    time: { created: now },
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    cost: 0,
  });
  const git = sessionShadow(dataDir, project, id);
  const hash = await trackFiles(git);
  change();
  const snapshot = await trackFiles(git);
  const files = (await changedFiles(git, hash, snapshot)).map((file) => file.path);
  await store.savePart({ id: `prt_${id}`, sessionID: id, messageID: answer, type: 'patch', hash, snapshot, files });
}

describe('a revert', () => {
  it('run again after an interruption finishes what it started, and its unrevert restores the files of before', async () => {
    write('a.txt', 'a0\n');
    write('b.txt', 'b0\n');
    await sessionWithStep('ses_one', () => {
      write('a.txt', 'a1\n');
      write('b.txt', 'b1\n');
      write('c.txt', 'c1\n');
    });
    const first = await revertSession(store, dataDir, { sessionId: 'ses_one' });
    expect(first.restored).toEqual(['a.txt', 'b.txt', 'c.txt']);
    // As if the worker died after the first file: the others still hold the agent's versions.
    write('b.txt', 'b1\n');
    write('c.txt', 'c1\n');
    const again = await revertSession(store, dataDir, { sessionId: 'ses_one' });
    expect(again).toMatchObject({ restored: ['a.txt', 'b.txt', 'c.txt'], conflicts: [] });
    expect([read('a.txt'), read('b.txt'), read('c.txt')]).toEqual(['a0\n', 'b0\n', undefined]);

    const back = await unrevertSession(store, dataDir, { sessionId: 'ses_one' });
    expect(back.conflicts).toEqual([]);
    expect([read('a.txt'), read('b.txt'), read('c.txt')]).toEqual(['a1\n', 'b1\n', 'c1\n']);
  });

  it('never writes through a folder an agent turned into a link out of the project', async () => {
    const outside = join(root, 'outside');
    mkdirSync(outside);
    write('dir/file.txt', 'mine\n');
    const git = sessionShadow(dataDir, project, 'ses_link');
    const before = await trackFiles(git);
    rmSync(join(project, 'dir'), { recursive: true });
    symlinkSync(outside, join(project, 'dir'));
    const result = await restoreFiles(git, before, ['dir/file.txt']);
    expect(result).toEqual({ restored: [], conflicts: ['dir/file.txt'] });
    expect(existsSync(join(outside, 'file.txt'))).toBe(false);
    expect((await restoreFiles(git, before, ['../escape.txt'])).conflicts).toEqual(['../escape.txt']);
  });

  it('puts back a folder an agent replaced by a link out of the project, and unrevert puts the link back', async () => {
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'file.txt'), 'outside\n');
    write('sub/file.txt', 'mine\n');
    await sessionWithStep('ses_swap', () => {
      rmSync(join(project, 'sub'), { recursive: true });
      symlinkSync(outside, join(project, 'sub'));
    });
    const reverted = await revertSession(store, dataDir, { sessionId: 'ses_swap' });
    expect(reverted).toMatchObject({ restored: ['sub', 'sub/file.txt'], conflicts: [] });
    expect(lstatSync(join(project, 'sub')).isDirectory()).toBe(true);
    expect(read('sub/file.txt')).toBe('mine\n');

    const back = await unrevertSession(store, dataDir, { sessionId: 'ses_swap' });
    expect(back).toMatchObject({ restored: ['sub', 'sub/file.txt'], conflicts: [] });
    expect(readlinkSync(join(project, 'sub'))).toBe(outside);
    // Nothing was written or deleted through the link, either way.
    expect(readdirSync(outside)).toEqual(['file.txt']);
    expect(readFileSync(join(outside, 'file.txt'), 'utf8')).toBe('outside\n');
  });

  it('never touches the files of another folder of the project through a link put back in its place', async () => {
    write('other/file.txt', 'other\n');
    write('sub/file.txt', 'mine\n');
    await sessionWithStep('ses_inside', () => {
      rmSync(join(project, 'sub'), { recursive: true });
      symlinkSync(join(project, 'other'), join(project, 'sub'));
    });
    await revertSession(store, dataDir, { sessionId: 'ses_inside' });
    expect(read('sub/file.txt')).toBe('mine\n');
    expect(await unrevertSession(store, dataDir, { sessionId: 'ses_inside' })).toMatchObject({ conflicts: [] });
    expect(readlinkSync(join(project, 'sub'))).toBe(join(project, 'other'));
    expect(readFileSync(join(project, 'other', 'file.txt'), 'utf8')).toBe('other\n');
  });

  it('refuses a busy session, and a session that is not reverted has nothing to unrevert', async () => {
    await sessionWithStep('ses_busy', () => write('x.txt', 'x\n'));
    await store.setSessionStatus('ses_busy', 'busy', Date.now());
    await expect(revertSession(store, dataDir, { sessionId: 'ses_busy' })).rejects.toThrow(
      'Session ses_busy is busy: revert it once its run has finished',
    );
    await store.setSessionStatus('ses_busy', 'idle', Date.now());
    await expect(unrevertSession(store, dataDir, { sessionId: 'ses_busy' })).rejects.toThrow(
      'Session ses_busy is not reverted: there is nothing to unrevert.',
    );
    expect(read('x.txt')).toBe('x\n');
  });
});
