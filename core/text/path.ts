/**
 * POSIX path helpers for code that cannot import `node:path` (the workflow sandbox). The first
 * four behave exactly as `path.posix` does, except that a relative start is taken from `/`: there
 * is no current directory here.
 */

/** The segments of `path` with `.` and empty ones dropped and `..` applied; leading `..` kept unless `absolute`. */
function segments(path: string, absolute: boolean): string[] {
  const result: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (result.length > 0 && result[result.length - 1] !== '..') result.pop();
      else if (!absolute) result.push('..');
      continue;
    }
    result.push(segment);
  }
  return result;
}

/** Like `path.posix.normalize`: collapses `//`, `.` and `..`, keeps a leading and a trailing `/`. */
export function normalizePath(path: string): string {
  if (path === '') return '.';
  const absolute = path.startsWith('/');
  const trailing = path.endsWith('/');
  const joined = segments(path, absolute).join('/');
  if (joined === '') return absolute ? '/' : trailing ? './' : '.';
  return `${absolute ? '/' : ''}${joined}${trailing ? '/' : ''}`;
}

/** Like `path.posix.resolve(base, path)`: an absolute path without a trailing `/`. */
export function resolvePath(base: string, path: string): string {
  const joined = path.startsWith('/') ? path : `${base}/${path}`;
  return `/${segments(joined, true).join('/')}`;
}

/** Like `path.posix.relative(from, to)`: `''` when they are the same. */
export function relativePath(from: string, to: string): string {
  const start = segments(resolvePath('/', from), true);
  const end = segments(resolvePath('/', to), true);
  let common = 0;
  while (common < start.length && common < end.length && start[common] === end[common]) common++;
  return [...start.slice(common).map(() => '..'), ...end.slice(common)].join('/');
}

/** Like `path.posix.dirname`, quirks included (`//a` → `//`, `/a//b` → `/a/`). */
export function dirnamePath(path: string): string {
  if (path === '') return '.';
  const rooted = path.startsWith('/');
  // Skip the trailing slashes, then the last name; the dirname ends at the slash before that name.
  let index = path.length - 1;
  while (index >= 1 && path[index] === '/') index--;
  while (index >= 1 && path[index] !== '/') index--;
  if (index < 1) return rooted ? '/' : '.';
  if (rooted && index === 1) return '//';
  return path.slice(0, index);
}

/**
 * Whether `path` is `directory` or below it. Both absolute, or both relative to the same folder;
 * one of each is never inside.
 */
export function isInsidePath(directory: string, path: string): boolean {
  const absolute = directory.startsWith('/');
  if (absolute !== path.startsWith('/')) return false;
  const outer = segments(directory, absolute);
  const inner = segments(path, absolute);
  if (inner.length < outer.length) return false;
  if (!outer.every((segment, index) => inner[index] === segment)) return false;
  // `..` can follow the shared part only when that part is all `..`: `../../x` is not inside `..`.
  return inner[outer.length] !== '..';
}

/** Expands `~`, `~/x`, `$HOME` and `$HOME/x` to the home folder; other paths are returned as they are. */
export function expandHome(path: string, home: string): string {
  if (path === '~' || path === '$HOME') return home;
  const rest = path.startsWith('~/') ? path.slice(1) : path.startsWith('$HOME/') ? path.slice(5) : undefined;
  if (rest === undefined) return path;
  return home.replace(/\/+$/, '') + rest;
}
