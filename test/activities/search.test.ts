import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheDir } from '../../activities/process/paths.js';
import { findRipgrep, RIPGREP_VERSION } from '../../activities/tools/search/ripgrep.js';
import { glob } from '../../activities/tools/glob.js';
import { grep } from '../../activities/tools/grep.js';
import { list } from '../../activities/tools/list.js';
import type { SearchBackend } from '../../activities/tools/search/backend.js';
import { jsBackend } from '../../activities/tools/search/js-backend.js';
import { ripgrepBackend } from '../../activities/tools/search/ripgrep-backend.js';
import { smallTreesInNode } from '../../activities/tools/search/small-trees-in-node.js';
import { ToolError } from '../../activities/tools/running/tool-handler.js';
import { createToolContext, type ToolTestContext } from '../../testkit/model/tool-context.js';
import { PROJECT_ROOT } from '../../worker/bundle.js';

let project: string;
let outside: string;
const contexts: ToolTestContext[] = [];
const at = (path: string) => join(project, path);

function write(path: string, content: string, mtimeSeconds = 1_000): void {
  const file = join(project, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, content);
  utimesSync(file, mtimeSeconds, mtimeSeconds);
}

async function toolError(run: Promise<unknown>): Promise<string> {
  const error = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

/** ripgrep as the tools find it, with the download shared by every run on this machine. */
async function sharedRipgrep(): Promise<string> {
  const cache = cacheDir(process.env);
  const rg = await findRipgrep({ ...process.env, LOOM_CACHE_DIR: cache, LOOM_RIPGREP: undefined });
  if (!rg) {
    throw new Error(
      `No ripgrep: none on PATH, none in ${join(cache, 'bin')}, and "python3 -m pip install ripgrep" failed. The ripgrep half of these tests needs it.`,
    );
  }
  return rg;
}

beforeAll(() => {
  project = realpathSync(mkdtempSync(join(tmpdir(), 'loom-search-')));
  outside = realpathSync(mkdtempSync(join(tmpdir(), 'loom-search-outside-')));
  writeFileSync(join(outside, 'private.txt'), 'needle outside\n');
  write('.gitignore', '*.log\nbuild-output/\nlogs/\ncache-dir/\n');
  write('.ignore', 'scratch/\n');
  write('src/a.ts', 'export const needle = 1;\n', 3_000);
  write('src/b.tsx', 'const x = <p>needle</p>;\n', 2_000);
  write('src/c.js', 'needle in js\n', 4_000);
  write('src/lib/d.js', 'needle deeper in js\n', 500);
  write('src/.gitignore', '!cache-dir/\n');
  write('src/cache-dir/kept.ts', 'needle re-included\n');
  write('top.ts', 'needle at the top\n', 1_500);
  // A nested .gitignore applies to its own folder and below, relative to it.
  write('pkg/.gitignore', '*.gen.ts\nout/\n!keep.log\n');
  write('pkg/keep.ts', 'needle kept\n');
  write('pkg/skip.gen.ts', 'needle generated\n');
  write('pkg/sub/deeper.gen.ts', 'needle generated deeper\n');
  write('pkg/out/x.ts', 'needle in out\n');
  write('pkg/keep.log', 'needle log kept\n');
  write('other/not-skipped.gen.ts', 'needle not generated here\n');
  write('app.log', 'needle log\n');
  write('logs/today.txt', 'needle in logs\n');
  write('logs/today.log', 'needle log in logs\n');
  write('build-output/x.ts', 'needle built\n');
  write('scratch/x.ts', 'needle scratch\n');
  write('node_modules/lib/index.ts', 'needle module\n');
  write('sub/node_modules/lib/index.ts', 'needle module\n');
  write('.hidden/found.ts', 'needle hidden\n');
  write('.env', 'needle=1\n');
  write('.git/config', 'needle git\n');
  write('.git/HEAD', 'ref: needle\n');
  write('big.txt', `${'needle '.repeat(400_000)}\n`);
  writeFileSync(at('binary.dat'), Buffer.from('needle\u0000binary\n'));
  symlinkSync(outside, at('linked'));
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  rmSync(project, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** Every file the project shows to the tools, whichever backend walks it. */
const VISIBLE = [
  '.env',
  '.gitignore',
  '.hidden/found.ts',
  '.ignore',
  'big.txt',
  'binary.dat',
  'other/not-skipped.gen.ts',
  'pkg/.gitignore',
  'pkg/keep.log',
  'pkg/keep.ts',
  'src/.gitignore',
  'src/a.ts',
  'src/b.tsx',
  'src/c.js',
  'src/cache-dir/kept.ts',
  'src/lib/d.js',
  'top.ts',
];

describe.each([
  [
    'ripgrep',
    async () => ({
      backend: ripgrepBackend(await sharedRipgrep(), process.env),
      env: { ...process.env, LOOM_RIPGREP: await sharedRipgrep() },
    }),
  ],
  ['js', async () => ({ backend: jsBackend, env: { ...process.env, LOOM_RIPGREP: 'off' } })],
] as const)('the %s search', (name, setup) => {
  let backend: SearchBackend;
  let context: ToolTestContext;
  const scope = (signal = new AbortController().signal) => ({ project, signal });
  const files = async (root: string, options: { glob?: string; ignore?: string[] } = {}) =>
    (await backend.listFiles(root, { ...options, ...scope() })).map((path) => relative(project, path)).sort();

  beforeAll(async () => {
    const chosen = await setup();
    backend = chosen.backend;
    context = createToolContext(project, { env: chosen.env });
    contexts.push(context);
  });

  it('is the backend the tools pick', async () => {
    expect(backend.name).toBe(name);
    expect((await glob({ pattern: '*.ts' }, context)).output).toBe(at('top.ts'));
  });

  it('honours top-level and nested ignore files, skips node_modules and .git, and finds hidden files', async () => {
    expect(await files(project)).toEqual(VISIBLE);
  });

  it('applies a nested .gitignore to its own folder and below, and nowhere else', async () => {
    const { output } = await glob({ pattern: '**/*.ts' }, context);
    expect(output).toContain(at('pkg/keep.ts'));
    expect(output).toContain(at('other/not-skipped.gen.ts'));
    expect(output).not.toContain('skip.gen.ts');
    expect(output).not.toContain('deeper.gen.ts');
    expect(output).not.toContain('out/x.ts');
    expect(await files(at('pkg/sub'))).toEqual([]);
  });

  it('matches glob patterns against the path from the search folder', async () => {
    expect(await files(project, { glob: 'src/*.js' })).toEqual(['src/c.js']);
    expect(await files(project, { glob: '**/*.js' })).toEqual(['src/c.js', 'src/lib/d.js']);
    expect(await files(project, { glob: '*.ts' })).toEqual(['top.ts']);
    expect(await files(at('src'), { glob: '*.{ts,tsx}' })).toEqual(['src/a.ts', 'src/b.tsx']);
    expect(await files(project, { glob: 'src/a.ts' })).toEqual(['src/a.ts']);
    expect(await files(project, { glob: 'logs/*' })).toEqual(['logs/today.txt']);
  });

  it('leaves out the extra ignore patterns of list', async () => {
    expect(await files(at('src'), { ignore: ['lib', '*.tsx', 'cache-dir/**'] })).toEqual([
      'src/.gitignore',
      'src/a.ts',
      'src/c.js',
    ]);
    const { output } = await list({ path: 'src', ignore: ['**/lib/**'] }, context);
    expect(output).not.toContain('d.js');
    expect(output).toContain('  a.ts');
  });

  it('searches a folder it was pointed at even when ignored, keeping the patterns that apply inside', async () => {
    expect(await files(at('logs'))).toEqual(['logs/today.txt']);
    const { output } = await grep({ pattern: 'needle', path: 'logs' }, context);
    expect(output).toBe(`Found 1 matches\n\n${at('logs/today.txt')}:\n  Line 1: needle in logs`);
  });

  it('lists files newest first', async () => {
    const { output } = await glob({ pattern: 'src/**/*.{ts,tsx,js}' }, context);
    expect(output.split('\n')).toEqual([
      at('src/c.js'),
      at('src/a.ts'),
      at('src/b.tsx'),
      at('src/cache-dir/kept.ts'),
      at('src/lib/d.js'),
    ]);
  });

  it('greps files newest first, leaving out ignored, binary and oversized files', async () => {
    const { output } = await grep({ pattern: 'needle' }, context);
    const shown = output.split('\n').filter((line) => line.endsWith(':'));
    expect(shown.slice(0, 4)).toEqual([
      `${at('src/c.js')}:`,
      `${at('src/a.ts')}:`,
      `${at('src/b.tsx')}:`,
      `${at('top.ts')}:`,
    ]);
    expect(shown.map((line) => relative(project, line.slice(0, -1))).sort()).toEqual([
      '.env',
      '.hidden/found.ts',
      'other/not-skipped.gen.ts',
      'pkg/keep.log',
      'pkg/keep.ts',
      'src/a.ts',
      'src/b.tsx',
      'src/c.js',
      'src/cache-dir/kept.ts',
      'src/lib/d.js',
      'top.ts',
    ]);
    expect(output.startsWith('Found 11 matches\n')).toBe(true);
  });

  it('greps only the files include names, at any depth', async () => {
    const ts = await backend.searchContent(project, { pattern: 'needle', include: '*.ts', ...scope() });
    expect(ts.map((match) => relative(project, match.path)).sort()).toEqual([
      '.hidden/found.ts',
      'other/not-skipped.gen.ts',
      'pkg/keep.ts',
      'src/a.ts',
      'src/cache-dir/kept.ts',
      'top.ts',
    ]);
    const { output } = await grep({ pattern: 'needle', include: '*.{ts,tsx}', path: 'src' }, context);
    expect(output).toBe(
      [
        'Found 3 matches',
        '',
        `${at('src/a.ts')}:`,
        '  Line 1: export const needle = 1;',
        '',
        `${at('src/b.tsx')}:`,
        '  Line 1: const x = <p>needle</p>;',
        '',
        `${at('src/cache-dir/kept.ts')}:`,
        '  Line 1: needle re-included',
      ].join('\n'),
    );
    expect((await grep({ pattern: 'needle', include: 'src/*.js' }, context)).output).toBe(
      `Found 1 matches\n\n${at('src/c.js')}:\n  Line 1: needle in js`,
    );
  });

  it('greps one file when pointed at it', async () => {
    const { output } = await grep({ pattern: 'deeper', path: 'src/lib/d.js' }, context);
    expect(output).toBe(`Found 1 matches\n\n${at('src/lib/d.js')}:\n  Line 1: needle deeper in js`);
  });

  it('reports an invalid regular expression in the same words', async () => {
    expect(await toolError(grep({ pattern: 'foo(' }, context))).toMatch(/^Invalid regular expression "foo\(": \S/);
  });

  it('refuses a pattern or include that reaches outside the project, and does not follow symlinks there', async () => {
    for (const pattern of [`../${basename(outside)}/*`, `${outside}/*.txt`]) {
      expect(await toolError(glob({ pattern }, context))).toBe(
        `The pattern "${pattern}" reaches ${outside}, outside the project directory ${project}. Access to other directories needs the external_directory permission, which is not granted.`,
      );
    }
    const message = await toolError(grep({ pattern: 'needle', include: `../${basename(outside)}/*` }, context));
    expect(message).toContain('outside the project directory');
    expect(message).not.toContain('needle outside');
    expect((await grep({ pattern: 'needle outside' }, context)).output).toBe('No files found');
  });

  it('stops when aborted', async () => {
    const before = new AbortController();
    before.abort(new Error('cancelled before'));
    await expect(backend.listFiles(project, scope(before.signal))).rejects.toThrow('cancelled before');
    const during = new AbortController();
    const search = backend.searchContent(project, { pattern: 'needle', ...scope(during.signal) });
    setImmediate(() => during.abort(new Error('cancelled during')));
    await expect(search).rejects.toThrow('cancelled during');
  });
});

describe('findRipgrep', () => {
  it('leaves ripgrep out when LOOM_RIPGREP is off', async () => {
    for (const off of ['off', '0', 'false'])
      expect(await findRipgrep({ ...process.env, LOOM_RIPGREP: off })).toBeUndefined();
  });

  it('refuses a LOOM_RIPGREP that is not a ripgrep binary', async () => {
    await expect(findRipgrep({ ...process.env, LOOM_RIPGREP: '/nowhere/rg' })).rejects.toThrow(
      'LOOM_RIPGREP is set to "/nowhere/rg", which is not a ripgrep binary that runs.',
    );
  });

  it('uses the copy in the cache folder', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'loom-rg-cache-'));
    try {
      mkdirSync(join(cache, 'bin'));
      symlinkSync(await sharedRipgrep(), join(cache, 'bin', 'rg'));
      expect(await findRipgrep({ PATH: '', LOOM_CACHE_DIR: cache })).toBe(join(cache, 'bin', 'rg'));
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('falls back to the JS search when it cannot install ripgrep, saying so once on stderr', () => {
    const cache = mkdtempSync(join(tmpdir(), 'loom-rg-cache-'));
    try {
      // A worker's process, as `loom run` starts one; no PATH: neither rg nor python3 can be found.
      const script = `import { findRipgrep } from './activities/tools/search/ripgrep.ts';
        const env = { PATH: '', LOOM_CACHE_DIR: ${JSON.stringify(cache)} };
        console.log(JSON.stringify([await findRipgrep(env), await findRipgrep(env)]));`;
      const worker = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: PROJECT_ROOT,
        env: { ...process.env, PATH: '' },
        encoding: 'utf8',
      });
      expect(worker.stdout.trim()).toBe('[null,null]');
      const target = join(cache, 'bin', 'rg');
      expect(worker.stderr.trim().split('\n')).toEqual([
        `Loom: installing ripgrep ${RIPGREP_VERSION} for the grep and glob tools with pip (PyPI's "ripgrep" wheel) into ${target}, once (LOOM_RIPGREP=off: the built-in search instead).`,
        expect.stringMatching(
          /^Loom: could not install ripgrep \(.*python3.*\); the grep and glob tools use the built-in search\.$/,
        ),
      ]);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

describe('the search the tools use with ripgrep at hand', () => {
  /** ripgrep, counting the searches handed to it. */
  async function countedRipgrep() {
    const rg = ripgrepBackend(await sharedRipgrep(), process.env);
    const counted = { calls: 0, backend: { ...rg } as SearchBackend };
    counted.backend.listFiles = (root, options) => (counted.calls++, rg.listFiles(root, options));
    counted.backend.searchContent = (root, options) => (counted.calls++, rg.searchContent(root, options));
    return counted;
  }
  const scope = () => ({ project, signal: new AbortController().signal });

  it('walks a small tree in Node, without starting ripgrep', async () => {
    const rg = await countedRipgrep();
    const backend = smallTreesInNode(rg.backend);
    expect((await backend.listFiles(project, scope())).map((path) => relative(project, path)).sort()).toEqual(VISIBLE);
    expect(await backend.searchContent(project, { pattern: 'needle', ...scope() })).not.toHaveLength(0);
    expect(rg.calls).toBe(0);
  });

  it('hands a tree past the walk budget to ripgrep, with the same results', async () => {
    const rg = await countedRipgrep();
    const backend = smallTreesInNode(rg.backend, 5);
    expect((await backend.listFiles(project, scope())).map((path) => relative(project, path)).sort()).toEqual(VISIBLE);
    const matches = await backend.searchContent(project, { pattern: 'needle', ...scope() });
    const walked = await jsBackend.searchContent(project, { pattern: 'needle', ...scope() });
    expect(matches.map((m) => `${m.path}:${m.line}`).sort()).toEqual(walked.map((m) => `${m.path}:${m.line}`).sort());
    expect(rg.calls).toBe(2);
  });
});
