// Round three: the programs Loom itself runs over a workspace, outside the sandbox (its snapshots'
// git, git for forks and isolated copies, ripgrep behind grep/glob/list), must not run the
// project's own code. An agent can write every file of the project, its `.git` included, and the
// project's configuration sets the tools' environment (`shell_env`): each probe arms one of those
// and asserts that the program it names never ran (it would leave a marker file).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cacheDir } from '../../activities/process/paths.js';
import { applyChanges } from '../../activities/snapshot/apply-changes.js';
import { changedFiles, unifiedDiff } from '../../activities/snapshot/changes.js';
import { collectSnapshots } from '../../activities/snapshot/collect.js';
import { batchSnapshots, materialiseCopy, snapshotCopy, snapshotProject } from '../../activities/snapshot/copies.js';
import { forkSession } from '../../activities/snapshot/fork.js';
import { restoreFiles } from '../../activities/snapshot/restore.js';
import { safeGit } from '../../activities/snapshot/safe-git.js';
import { sessionShadow } from '../../activities/snapshot/step-activities.js';
import { trackFiles } from '../../activities/snapshot/track.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import { glob } from '../../activities/tools/glob.js';
import { grep } from '../../activities/tools/grep.js';
import { list } from '../../activities/tools/list.js';
import { NODE_WALK_BUDGET } from '../../activities/tools/search/small-trees-in-node.js';
import { write } from '../../testkit/files.js';
import { createToolContext } from '../../testkit/model/tool-context.js';

let root: string;
let project: string;
let markers: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'loom-own-programs-')));
  project = join(root, 'project');
  markers = join(root, 'markers');
  mkdirSync(project);
  mkdirSync(markers);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The programs of the project that ran: each leaves a file named for itself in `markers`. */
const ran = () => readdirSync(markers).sort();

/**
 * A script that records that it ran under `name`, then passes its input through (`filter`, as a
 * smudge or clean filter would) or ends (a hook, a filter process that fails its handshake).
 */
function probe(path: string, name: string, filter = false): string {
  write(path, `#!/bin/sh\ntouch '${join(markers, name)}'\n${filter ? 'cat' : 'exit 0'}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** An agent's own git runs, with nothing of the project's armed yet. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
}

/**
 * A repository whose `.git` runs a program at every chance git gives it: hooks, a smudge/clean
 * filter and a long-running filter process selected by `.gitattributes` (required, so a filter
 * merely switched off would fail the checkout), and an fsmonitor.
 */
function hostileRepository(folder: string): void {
  git(folder, 'init', '--quiet');
  write(join(folder, '.gitattributes'), '*.txt filter=probe\n*.md filter=long\n');
  write(join(folder, 'a.txt'), 'committed\n');
  write(join(folder, 'notes.md'), 'notes\n');
  write(join(folder, 'old.txt'), 'old\n');
  git(folder, 'add', '.');
  git(folder, 'commit', '--quiet', '-m', 'start');
  arm(folder);
}

function arm(folder: string): void {
  const hooks = join(folder, '.git', 'hooks');
  for (const hook of ['post-checkout', 'post-index-change', 'reference-transaction', 'pre-auto-gc', 'post-commit'])
    probe(join(hooks, hook), hook);
  const tools = join(folder, '.git', 'probes');
  git(folder, 'config', 'filter.probe.smudge', probe(join(tools, 'smudge'), 'smudge-filter', true));
  git(folder, 'config', 'filter.probe.clean', probe(join(tools, 'clean'), 'clean-filter', true));
  git(folder, 'config', 'filter.probe.required', 'true');
  git(folder, 'config', 'filter.long.process', probe(join(tools, 'process'), 'filter-process'));
  git(folder, 'config', 'core.fsmonitor', probe(join(tools, 'fsmonitor'), 'fsmonitor'));
}

/** The armed repository made harmless again, so the test's own git can look at the result. */
function disarm(folder: string): void {
  rmSync(join(folder, '.git', 'hooks'), { recursive: true, force: true });
  git(folder, 'config', '--remove-section', 'filter.probe');
  git(folder, 'config', '--remove-section', 'filter.long');
  git(folder, 'config', '--unset', 'core.fsmonitor');
}

describe("a fork's folder", () => {
  it("is made without running the project's hooks, filters or fsmonitor, and is the worktree it was", async () => {
    hostileRepository(project);
    write(join(project, 'a.txt'), 'changed by the agent\n');
    write(join(project, 'made.txt'), 'made by the agent\n');
    rmSync(join(project, 'old.txt'));
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    const store = new SqliteSessionStore(join(dataDir, 'loom.db'));
    try {
      const now = Date.now();
      await store.saveSession({
        id: 'ses_hostile',
        title: 't',
        agent: 'build',
        model: 'm/m',
        directory: project,
        status: 'idle',
        time: { created: now, updated: now },
      });
      const folder = join(root, 'fork');
      const forking = forkSession(store, dataDir, { sessionId: 'ses_hostile', dir: folder });
      // What ran is checked first: a program of the project that fails can fail the fork too.
      await forking.catch(() => undefined);
      expect(ran()).toEqual([]);
      const fork = await forking;
      expect(fork.files).toMatchObject({ kind: 'worktree', branch: expect.stringMatching(/^loom\/fork-/) });
      expect(readFileSync(join(folder, 'a.txt'), 'utf8')).toBe('changed by the agent\n');
      expect(readFileSync(join(folder, 'made.txt'), 'utf8')).toBe('made by the agent\n');
      expect(readFileSync(join(folder, 'notes.md'), 'utf8')).toBe('notes\n');
      expect(existsSync(join(folder, 'old.txt'))).toBe(false);
      disarm(project);
      expect(git(folder, 'branch', '--show-current').trim()).toBe(fork.files!.branch);
      expect(git(folder, 'status', '--porcelain')).toBe(' M a.txt\n D old.txt\n?? made.txt\n');
    } finally {
      await store.close();
    }
  });
});

describe("git over a repository that is not Loom's own", () => {
  it("checks out, hashes and commits with none of the repository's filters, hooks or fsmonitor", async () => {
    hostileRepository(project);
    const run = (args: string[], foreign: boolean) => safeGit(args, { cwd: project, where: 'in the test', foreign });
    // As git runs for Loom's own repositories: the clean filter the project defines runs.
    await run(['hash-object', 'a.txt'], false);
    expect(ran()).toEqual(['clean-filter']);
    rmSync(join(markers, 'clean-filter'));

    rmSync(join(project, 'a.txt'));
    rmSync(join(project, 'notes.md'));
    await run(['checkout', '--', '.'], true);
    write(join(project, 'a.txt'), 'changed\n');
    expect((await run(['status', '--porcelain'], true)).toString()).toBe(' M a.txt\n');
    await run(['commit', '--quiet', '-am', 'by Loom'], true);
    expect(ran()).toEqual([]);
    expect(readFileSync(join(project, 'notes.md'), 'utf8')).toBe('notes\n');
    expect(git(project, 'cat-file', 'blob', 'HEAD:a.txt')).toBe('changed\n');

    // A name `-c filter.<name>.smudge=` cannot carry is refused, not left on.
    git(project, 'config', 'filter.a=b.smudge', probe(join(project, '.git', 'probes', 'eq'), 'eq-filter', true));
    await expect(run(['status'], true)).rejects.toThrow('defines a filter named "a=b", which Loom cannot switch off');
  });
});

describe("the snapshots' git", () => {
  it("takes, compares, restores and collects snapshots without running the project's programs", async () => {
    hostileRepository(project);
    const shadow = sessionShadow(join(root, 'data'), project, 'ses_hostile');
    const before = await trackFiles(shadow);
    write(join(project, 'a.txt'), 'changed by the agent\n');
    write(join(project, 'notes.md'), 'notes, changed\n');
    const after = await trackFiles(shadow);
    const paths = (await changedFiles(shadow, before, after)).map((file) => file.path);
    expect(paths).toEqual(['a.txt', 'notes.md']);
    expect(await unifiedDiff(shadow, before, after)).toContain('+changed by the agent');
    expect(await restoreFiles(shadow, before, paths, { expected: after })).toEqual({ restored: paths, conflicts: [] });
    await collectSnapshots(shadow);

    expect(ran()).toEqual([]);
    expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('committed\n');
  });
});

describe("an isolated batch's copies", () => {
  it("are made, read and applied without running the project's programs, or those a task armed in its copy", async () => {
    hostileRepository(project);
    write(join(project, 'a.txt'), 'one\ntwo\nthree\nfour\nfive\n');
    const folder = join(root, 'data', 'isolated', 'bat_hostile');
    const base = await snapshotProject(folder, project);
    const copy = await materialiseCopy(folder, base, 0, project);
    // The task (sandboxed, its copy writable) changes a file and arms the copy's own `.git`.
    write(join(copy, 'a.txt'), 'one by the task\ntwo\nthree\nfour\nfive\n');
    arm(copy);
    const { tree, files } = await snapshotCopy(folder, base, 0);
    expect(files).toEqual([{ path: 'a.txt', status: 'modified' }]);
    // The person changed the same file meanwhile: applying it merges.
    write(join(project, 'a.txt'), 'one\ntwo\nthree\nfour\nfive by the person\n');
    const applied = await applyChanges(batchSnapshots(folder, project, 'apply'), base, tree, ['a.txt']);

    expect(ran()).toEqual([]);
    expect(applied.merged).toEqual(['a.txt']);
    expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe(
      'one by the task\ntwo\nthree\nfour\nfive by the person\n',
    );
  });
});

describe('ripgrep behind grep, glob and list', () => {
  let tree: string;
  beforeAll(() => {
    // Bigger than a walk in Node covers, so the searches really go to ripgrep.
    tree = realpathSync(mkdtempSync(join(tmpdir(), 'loom-own-programs-rg-')));
    for (let i = 0; i <= NODE_WALK_BUDGET; i++) write(join(tree, 'many', `f${i}.txt`), `line ${i}\n`);
    write(join(tree, 'src', 'a.ts'), 'export const needle = 1;\n');
  });
  afterAll(() => rmSync(tree, { recursive: true, force: true }));
  let marks: string;
  beforeEach(() => (marks = mkdtempSync(join(tree, '..', 'loom-own-programs-marks-'))));
  afterEach(() => rmSync(marks, { recursive: true, force: true }));

  /** A program in the project that answers like ripgrep (so it would be used) and records that it ran. */
  function fakeRipgrep(path: string): string {
    write(path, `#!/bin/sh\ntouch '${join(marks, 'fake-rg')}'\necho 'ripgrep 14.1.0'\n`);
    chmodSync(path, 0o755);
    return path;
  }

  /** grep, glob and list with the project's `shell_env`, on a worker with ripgrep only in Loom's cache. */
  async function searchWith(shellEnv: Record<string, string>, input = { pattern: 'needle' }) {
    const context = createToolContext(tree, {
      env: { ...process.env, LOOM_RIPGREP: undefined, LOOM_CACHE_DIR: cacheDir(process.env) },
      config: { shell_env: shellEnv },
    });
    try {
      return [
        (await grep(input, context)).output,
        (await glob({ pattern: '**/a.ts' }, context)).output,
        (await list({ path: 'src' }, context)).output,
      ];
    } finally {
      await context.close();
    }
  }

  it("never runs a ripgrep that the project's shell_env names, puts on PATH or in a cache", async () => {
    const tools = join(tree, 'tools');
    fakeRipgrep(join(tools, 'rg'));
    fakeRipgrep(join(tree, 'cache', 'bin', 'rg'));
    const configured: Record<string, string>[] = [
      { LOOM_RIPGREP: join(tools, 'rg') },
      { PATH: `${tools}:${process.env.PATH}` },
      { LOOM_CACHE_DIR: join(tree, 'cache') },
    ];
    for (const shellEnv of configured) {
      const [grepped, globbed, listed] = await searchWith(shellEnv);
      expect(readdirSync(marks), JSON.stringify(shellEnv)).toEqual([]);
      expect(grepped).toContain(`${join(tree, 'src', 'a.ts')}:\n  Line 1: export const needle = 1;`);
      expect(globbed).toBe(join(tree, 'src', 'a.ts'));
      expect(listed).toContain('a.ts');
    }
  });

  it('reads no ripgrep configuration, and takes no flag from a pattern, an include or an ignore', async () => {
    const pre = join(tree, 'tools', 'pre');
    write(pre, `#!/bin/sh\ntouch '${join(marks, 'pre')}'\ncat "$1"\n`);
    chmodSync(pre, 0o755);
    write(join(tree, 'ripgreprc'), `--pre=${pre}\n`);
    await searchWith({ RIPGREP_CONFIG_PATH: join(tree, 'ripgreprc') });
    const context = createToolContext(tree, { env: { ...process.env, LOOM_CACHE_DIR: cacheDir(process.env) } });
    try {
      await grep({ pattern: `--pre=${pre}` }, context);
      await grep({ pattern: 'needle', include: `--pre=${pre}` }, context);
      await glob({ pattern: `--pre=${pre}` }, context);
      await list({ path: '.', ignore: [`--pre=${pre}`] }, context);
    } finally {
      await context.close();
    }
    expect(readdirSync(marks)).toEqual([]);
  });
});
