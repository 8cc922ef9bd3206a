import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  dirnamePath,
  expandHome,
  isInsidePath,
  normalizePath,
  relativePath,
  resolvePath,
} from '../../core/text/path.js';

const SAMPLES = [
  '',
  '.',
  '..',
  '/',
  '//',
  '///',
  'a',
  'a/',
  '/a',
  '/a/',
  '//a',
  'a//b',
  '/a//b',
  '/a/b/c',
  'a/b/c/',
  './a',
  '../a',
  '../../a/b',
  'a/..',
  'a/../',
  'a/../..',
  '/..',
  '/../a',
  '/a/../../b',
  'a/./b/.',
  '/a/b/../c/./d/',
  '.a/..b/...',
  'a/b/../../..',
  '/a/b//../c',
  'dir/file.txt',
  '/home/me/.env',
];

/** Every path of up to `length` segments from a small alphabet, with single, double and no slashes around. */
function generated(length: number): string[] {
  const parts = ['', '.', '..', 'a', 'b'];
  let paths = [''];
  for (let step = 0; step < length; step++)
    paths = paths.flatMap((path) => parts.map((part) => (step === 0 ? part : `${path}/${part}`)));
  return [...new Set(paths.flatMap((path) => [path, `/${path}`, `${path}/`]))];
}

const ALL = [...new Set([...SAMPLES, ...generated(4)])];
const ABSOLUTE = ALL.filter((path) => path.startsWith('/'));

describe('normalizePath', () => {
  it.each(SAMPLES)('%j as node does', (path) => {
    expect(normalizePath(path)).toBe(posix.normalize(path));
  });

  it('agrees with node on every generated path', () => {
    const differences = ALL.filter((path) => normalizePath(path) !== posix.normalize(path));
    expect(differences).toEqual([]);
  });
});

describe('resolvePath', () => {
  it.each([
    ['/p', 'src/a.ts'],
    ['/p', '/etc/hosts'],
    ['/p/', '../x/./y/'],
    ['/p', ''],
    ['/p', '.'],
    ['/', '..'],
    ['/p/q', '../../../..'],
    ['//p', 'a//b'],
  ])('(%j, %j) as node does', (base, path) => {
    expect(resolvePath(base, path)).toBe(posix.resolve(base, path));
  });

  it('agrees with node for every absolute base and generated path', () => {
    const differences = ABSOLUTE.flatMap((base) =>
      SAMPLES.filter((path) => resolvePath(base, path) !== posix.resolve(base, path)).map((path) => [base, path]),
    );
    expect(differences).toEqual([]);
  });
});

describe('relativePath', () => {
  it.each([
    ['/p', '/p/src/a.ts', 'src/a.ts'],
    ['/p/src', '/p/test/a.ts', '../test/a.ts'],
    ['/p', '/p', ''],
    ['/p/', '/p', ''],
    ['/p/a/b', '/p', '../..'],
    ['/', '/a', 'a'],
    ['/a', '/', '..'],
    ['/foo/bar', '/foo/barbaz', '../barbaz'],
    ['/foo/barbaz', '/foo/bar', '../bar'],
  ])('(%j, %j) → %j, as node does', (from, to, expected) => {
    expect(relativePath(from, to)).toBe(expected);
    expect(relativePath(from, to)).toBe(posix.relative(from, to));
  });

  it('agrees with node for every pair of absolute paths', () => {
    const paths = [
      ...new Set([...ABSOLUTE.filter((path) => path.length <= 8), '/foo/bar', '/foo/barbaz', '/foo/bar/baz']),
    ];
    const differences = paths.flatMap((from) =>
      paths.filter((to) => relativePath(from, to) !== posix.relative(from, to)).map((to) => [from, to]),
    );
    expect(differences).toEqual([]);
  });
});

describe('dirnamePath', () => {
  it.each(SAMPLES)('%j as node does', (path) => {
    expect(dirnamePath(path)).toBe(posix.dirname(path));
  });

  it('agrees with node on every generated path', () => {
    const differences = ALL.filter((path) => dirnamePath(path) !== posix.dirname(path));
    expect(differences).toEqual([]);
  });
});

describe('isInsidePath', () => {
  it.each([
    ['/p', '/p', true],
    ['/p', '/p/', true],
    ['/p/', '/p/src/a.ts', true],
    ['/p', '/p/a/../b', true],
    ['/p', '/p/../q', false],
    ['/p', '/pq', false],
    ['/p', '/', false],
    ['/', '/anything', true],
    ['/p/src', '/p', false],
    ['src', 'src/a.ts', true],
    ['.', 'a', true],
    ['.', '..', false],
    ['..', '../x', true],
    ['..', '../../x', false],
    ['/p', 'p/a', false],
    ['p', '/p/a', false],
  ])('(%j, %j) → %s', (directory, path, expected) => {
    expect(isInsidePath(directory, path)).toBe(expected);
  });

  it('agrees with node’s relative for absolute paths', () => {
    const paths = ABSOLUTE.filter((path) => path.length <= 8);
    // One assertion over all 285,000 pairs: an `expect` for each took half a minute.
    const differences = paths.flatMap((directory) =>
      paths
        .filter((path) => {
          const relative = posix.relative(directory, path);
          const inside = relative === '' || (relative !== '..' && !relative.startsWith('../'));
          return isInsidePath(directory, path) !== inside;
        })
        .map((path) => `${directory} ⊇ ${path}`),
    );
    expect(differences).toEqual([]);
  });
});

describe('expandHome', () => {
  it.each([
    ['~', '/home/me'],
    ['~/x/y', '/home/me/x/y'],
    ['$HOME', '/home/me'],
    ['$HOME/x', '/home/me/x'],
    ['~user/x', '~user/x'],
    ['$HOMEDIR/x', '$HOMEDIR/x'],
    ['a/~/b', 'a/~/b'],
    ['/abs', '/abs'],
  ])('%j → %j', (path, expected) => {
    expect(expandHome(path, '/home/me')).toBe(expected);
  });

  it('does not double a trailing slash of the home folder', () => {
    expect(expandHome('~/x', '/home/me/')).toBe('/home/me/x');
    expect(expandHome('~/x', '/')).toBe('/x');
  });
});
