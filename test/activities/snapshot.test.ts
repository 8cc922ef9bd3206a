import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changedFiles, unifiedDiff } from '../../activities/snapshot/changes.js';
import { collectSnapshots, forgetSnapshots } from '../../activities/snapshot/collect.js';
import { snapshotRoot } from '../../activities/snapshot/project-root.js';
import { restoreFiles } from '../../activities/snapshot/restore.js';
import { ShadowGit } from '../../activities/snapshot/shadow-git.js';
import { trackFiles } from '../../activities/snapshot/track.js';

let root: string;
let project: string;
let snapshots: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loom-snapshot-'));
  project = join(root, 'project');
  snapshots = join(root, 'data', 'snapshots');
  mkdirSync(project);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, content: string): void {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), content);
}
const read = (path: string) => readFileSync(join(project, path), 'utf8');

describe('snapshots of a project that is no git repository', () => {
  it('name what a step added, changed and deleted, and nothing when nothing changed', async () => {
    write('a.txt', 'one\n');
    write('src/b.ts', 'export const b = 1;\n');
    const git = ShadowGit.of(snapshots, project, 'ses_a');
    const before = await trackFiles(git);
    expect(await trackFiles(git)).toBe(before);

    write('a.txt', 'two\n');
    write('src/c.ts', 'new\n');
    rmSync(join(project, 'src/b.ts'));
    const after = await trackFiles(git);

    expect(await changedFiles(git, before, after)).toEqual([
      { path: 'a.txt', status: 'modified' },
      { path: 'src/b.ts', status: 'deleted' },
      { path: 'src/c.ts', status: 'added' },
    ]);
    const diff = await unifiedDiff(git, before, after, ['a.txt']);
    expect(diff).toContain('--- a/a.txt\n+++ b/a.txt');
    expect(diff).toContain('-one\n+two');
    expect(existsSync(join(project, '.git'))).toBe(false);
  });

  it('restores exactly the files named, and leaves every other file alone', async () => {
    write('a.txt', 'agent will change me\n');
    write('gone.txt', 'agent will delete me\n');
    write('other.txt', 'nobody touches me\n');
    const git = ShadowGit.of(snapshots, project, 'ses_a');
    const before = await trackFiles(git);
    write('a.txt', 'changed by the agent\n');
    rmSync(join(project, 'gone.txt'));
    write('made.txt', 'made by the agent\n');
    const after = await trackFiles(git);
    write('other.txt', 'changed by the person, never by the revert\n');

    const paths = (await changedFiles(git, before, after)).map((file) => file.path);
    const result = await restoreFiles(git, before, paths, { expected: after });

    expect(result).toEqual({ restored: ['a.txt', 'gone.txt', 'made.txt'], conflicts: [] });
    expect(read('a.txt')).toBe('agent will change me\n');
    expect(read('gone.txt')).toBe('agent will delete me\n');
    expect(existsSync(join(project, 'made.txt'))).toBe(false);
    expect(read('other.txt')).toBe('changed by the person, never by the revert\n');
  });

  it('reports a file a person changed after the agent as a conflict, and overwrites it only when forced', async () => {
    write('a.txt', 'original\n');
    const git = ShadowGit.of(snapshots, project, 'ses_a');
    const before = await trackFiles(git);
    write('a.txt', 'by the agent\n');
    const after = await trackFiles(git);
    write('a.txt', 'by the person, after the agent\n');

    expect(await restoreFiles(git, before, ['a.txt'], { expected: after })).toEqual({
      restored: [],
      conflicts: ['a.txt'],
    });
    expect(read('a.txt')).toBe('by the person, after the agent\n');
    expect(await restoreFiles(git, before, ['a.txt'], { expected: after, force: true })).toEqual({
      restored: ['a.txt'],
      conflicts: [],
    });
    expect(read('a.txt')).toBe('original\n');
  });

  it('brings back an executable file and a symbolic link as they were', async () => {
    write('run.sh', '#!/bin/sh\necho hi\n');
    chmodSync(join(project, 'run.sh'), 0o755);
    symlinkSync('run.sh', join(project, 'link'));
    const git = ShadowGit.of(snapshots, project, 'ses_a');
    const before = await trackFiles(git);
    rmSync(join(project, 'run.sh'));
    rmSync(join(project, 'link'));
    const after = await trackFiles(git);

    await restoreFiles(git, before, ['link', 'run.sh'], { expected: after });
    expect(statSync(join(project, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(readlinkSync(join(project, 'link'))).toBe('run.sh');
  });

  it('leaves out files over the size limit', async () => {
    write('small.txt', 'x');
    write('big.bin', 'y'.repeat(2000));
    const git = ShadowGit.of(snapshots, project, 'ses_a');
    const tree = await trackFiles(git, 1000);
    const listed = execFileSync('git', ['--git-dir', git.gitDir, 'ls-tree', '--name-only', tree], { encoding: 'utf8' });
    expect(listed.split('\n').filter(Boolean)).toEqual(['small.txt']);
  });
});

describe('snapshots of a git repository', () => {
  beforeEach(() => {
    execFileSync('git', ['init', '--quiet', project]);
    write('.gitignore', 'node_modules/\n*.log\n');
    mkdirSync(join(project, '.git', 'info'), { recursive: true });
    writeFileSync(join(project, '.git', 'info', 'exclude'), 'secret.txt\n');
  });

  it("honour the project's .gitignore and info/exclude, and never touch its own .git", async () => {
    write('index.ts', 'code\n');
    write('node_modules/dep/index.js', 'dependency\n');
    write('debug.log', 'noise\n');
    write('secret.txt', 'excluded\n');
    const headBefore = readFileSync(join(project, '.git', 'HEAD'), 'utf8');
    const git = ShadowGit.of(snapshots, project, 'ses_a');
    const tree = await trackFiles(git);

    const listed = execFileSync('git', ['--git-dir', git.gitDir, 'ls-tree', '-r', '--name-only', tree], {
      encoding: 'utf8',
    });
    expect(listed.split('\n').filter(Boolean)).toEqual(['.gitignore', 'index.ts']);
    expect(readFileSync(join(project, '.git', 'HEAD'), 'utf8')).toBe(headBefore);
    expect(execFileSync('git', ['-C', project, 'status', '--porcelain'], { encoding: 'utf8' })).not.toContain('index-');
  });

  it('cover the whole repository when the session runs in a subfolder, and restore only what changed', async () => {
    write('app/main.ts', 'main\n');
    write('lib/util.ts', 'util\n');
    expect(snapshotRoot(join(project, 'app'))).toBe(project);
    const git = ShadowGit.of(snapshots, snapshotRoot(join(project, 'app')), 'ses_a');
    const before = await trackFiles(git);
    write('app/main.ts', 'main, edited\n');
    const after = await trackFiles(git);
    write('lib/util.ts', 'util, edited by the person in a sibling folder\n');

    const paths = (await changedFiles(git, before, after)).map((file) => file.path);
    expect(paths).toEqual(['app/main.ts']);
    await restoreFiles(git, before, paths, { expected: after });
    expect(read('app/main.ts')).toBe('main\n');
    expect(read('lib/util.ts')).toBe('util, edited by the person in a sibling folder\n');
  });
});

describe('two sessions in one project', () => {
  it('stage into indexes of their own, and each keeps its snapshots until it is forgotten', async () => {
    write('a.txt', 'a\n');
    const first = ShadowGit.of(snapshots, project, 'ses_first');
    const second = ShadowGit.of(snapshots, project, 'ses_second');
    const [one, two] = await Promise.all([trackFiles(first), trackFiles(second)]);
    expect(one).toBe(two);
    expect(first.gitDir).toBe(second.gitDir);
    write('a.txt', 'b\n');
    await trackFiles(first);

    const refs = () =>
      execFileSync('git', ['--git-dir', first.gitDir, 'for-each-ref', '--format=%(refname)'], { encoding: 'utf8' })
        .trim()
        .split('\n');
    expect(refs()).toEqual(['refs/loom/ses_first', 'refs/loom/ses_second']);
    const history = execFileSync('git', ['--git-dir', first.gitDir, 'log', '--format=%T', 'refs/loom/ses_first'], {
      encoding: 'utf8',
    });
    expect(history.trim().split('\n')).toHaveLength(2);

    await forgetSnapshots(second);
    expect(refs()).toEqual(['refs/loom/ses_first']);
    expect(await collectSnapshots(first)).toBe(true);
    expect(await collectSnapshots(first)).toBe(false);
    expect(execFileSync('git', ['--git-dir', first.gitDir, 'cat-file', '-t', one], { encoding: 'utf8' }).trim()).toBe(
      'tree',
    );
  });

  it('refuses an owner that could name another path', () => {
    expect(() => ShadowGit.of(snapshots, project, '../escape')).toThrow('Not a session id for snapshots: "../escape"');
  });
});
