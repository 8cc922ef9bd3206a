import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import picomatch from 'picomatch';
import { isInside } from '../files/project-path.js';
import { ToolError } from '../running/tool-handler.js';

/**
 * How `list`, `glob` and `grep` walk the project: ripgrep when there is one, else plain Node.
 * Both leave out what `.gitignore`/`.ignore` files (nested ones too) and `ALWAYS_IGNORED` exclude,
 * include hidden files, follow no symlinks, and return absolute paths in no particular order.
 */
export interface SearchBackend {
  readonly name: 'ripgrep' | 'js';
  /** Files under `root`; `glob` is matched against paths relative to `root`, `ignore` leaves paths out. */
  listFiles(root: string, options: SearchScope & { glob?: string; ignore?: string[] }): Promise<string[]>;
  /** Lines matching the regular expression `pattern`, in files whose name matches `include`. */
  searchContent(root: string, options: SearchScope & { pattern: string; include?: string }): Promise<ContentMatch[]>;
}

export interface SearchScope {
  /** The project directory: no pattern may reach outside it, and its ignore files apply. */
  project: string;
  signal: AbortSignal;
}

export interface ContentMatch {
  path: string;
  line: number;
  text: string;
}

/** Folders nobody wants in a listing or a search. */
export const ALWAYS_IGNORED = [
  '.git',
  'node_modules',
  'dist',
  'build',
  'target',
  'vendor',
  '.venv',
  'venv',
  '__pycache__',
  '.cache',
  'coverage',
  '.next',
  '.idea',
  '.vscode',
];

/** grep skips files larger than this, as it skips binary ones. */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;

/** Where a search runs, worked out from the root and a glob before anything is walked. */
export interface SearchTarget {
  /** The folder to walk: the root, or the fixed start of the pattern (`src` for `src/*.ts`). */
  dir: string;
  /** Set when the root is a file: that file is the only candidate. */
  file?: string;
  /** The folder whose ignore files apply above `dir` (the project, or the root when outside it). */
  boundary: string;
  /** Whether a path relative to `dir` is wanted. */
  matches(relative: string): boolean;
  /** A glob every wanted file name matches, for backends that can filter names while walking. */
  nameGlob?: string;
  /** How many levels below `dir` a wanted file can be; undefined for any depth. */
  maxDepth?: number;
}

/**
 * What to walk for `pattern` under `root`, or undefined when there is nothing there. A pattern that
 * climbs out (`../x/*`, `/etc/*`) is refused before anything outside the project is read.
 */
export async function searchTarget(
  root: string,
  pattern: string | undefined,
  scope: SearchScope,
): Promise<SearchTarget | undefined> {
  const boundary = isInside(scope.project, root) ? scope.project : root;
  const scan = pattern === undefined ? undefined : picomatch.scan(pattern);
  let dir = root;
  let glob = pattern;
  if (scan && !scan.negated && scan.base) {
    // `src/*.ts` walks only `src`; `src/a.ts` names one file in `src`.
    const reached = resolve(root, scan.base);
    if (!isInside(boundary, reached)) {
      throw new ToolError(
        `The pattern "${pattern}" reaches ${reached}, outside the project directory ${scope.project}. Access to other directories needs the external_directory permission, which is not granted.`,
      );
    }
    dir = scan.isGlob ? reached : dirname(reached);
    glob = scan.isGlob ? scan.glob : basename(reached);
    if (!isInside(boundary, dir)) return undefined;
  }
  const kind = await stat(dir).catch(() => undefined);
  if (!kind) return undefined;
  const literal = scan && !scan.isGlob;
  const matcher =
    glob === undefined ? () => true : literal ? (path: string) => path === glob : picomatch(glob, { dot: true });
  if (!kind.isDirectory()) {
    // A file root (`grep` in one file) is searched as itself, if its name fits the pattern.
    const name = basename(dir);
    return { dir: dirname(dir), file: dir, boundary, matches: (path) => path === name && matcher(path) };
  }
  const hints = glob === undefined || scan?.negated ? {} : literal ? { maxDepth: 1 } : walkHints(glob);
  return { dir, boundary, matches: matcher, ...hints };
}

/** A grep `include` as a pattern: a bare name pattern (`*.ts`) matches at any depth. */
export function includePattern(include: string | undefined): string | undefined {
  if (!include) return undefined;
  return include.includes('/') ? include : `**/${include}`;
}

/** The file-name glob and depth a pattern implies, so a walk can skip what cannot match. */
function walkHints(glob: string): Pick<SearchTarget, 'nameGlob' | 'maxDepth'> {
  const hints: Pick<SearchTarget, 'nameGlob' | 'maxDepth'> = {};
  const name = /^(?:\*\*\/)?([\w.*?{},\- ]+)$/.exec(glob)?.[1];
  // Only plain name globs: ripgrep's glob dialect differs from picomatch's in brackets and extglobs.
  if (name && name !== '*' && !name.includes('**')) hints.nameGlob = name;
  if (!glob.includes('**') && !/[({][^)}]*\//.test(glob)) hints.maxDepth = glob.split('/').length;
  return hints;
}

/** The error for a pattern neither JS nor ripgrep can parse, with the engine's own reason. */
export function invalidRegex(pattern: string, reason: string): ToolError {
  return new ToolError(`Invalid regular expression "${pattern}": ${reason}`);
}
