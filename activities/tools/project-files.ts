import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { glob } from 'tinyglobby';
import { isInside } from './project-path.js';
import { ToolError } from './tool-handler.js';

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

export interface ProjectFile {
  path: string;
  mtime: number;
}

/**
 * Files under `root` matching `pattern`, leaving out what the project's `.gitignore` and
 * `ALWAYS_IGNORED` exclude, most recently modified first.
 */
export async function findFiles(
  project: string,
  root: string,
  pattern: string,
  options: { ignore?: string[]; signal?: AbortSignal } = {},
): Promise<ProjectFile[]> {
  const paths = await glob(pattern, {
    cwd: root,
    absolute: true,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    ignore: [...ALWAYS_IGNORED.map((name) => `**/${name}/**`), ...(options.ignore ?? [])],
  });
  options.signal?.throwIfAborted();
  const ignored = gitignore(project);
  const files: ProjectFile[] = [];
  for (const path of paths) {
    // A pattern may climb out of `root` (`../x/*`, `/etc/*`): the same boundary as for paths.
    if (!isInside(project, path)) {
      throw new ToolError(
        `The pattern "${pattern}" reaches ${path}, outside the project directory ${project}. Access to other directories needs the external_directory permission, which is not granted.`,
      );
    }
    const rel = relative(project, path);
    if (rel && !rel.startsWith('..') && ignored.ignores(rel)) continue;
    try {
      files.push({ path, mtime: statSync(path).mtimeMs });
    } catch {
      // Deleted while we looked.
    }
  }
  return files.sort((a, b) => b.mtime - a.mtime || a.path.localeCompare(b.path));
}

/** The project's top-level `.gitignore` and `.ignore` rules. */
export function gitignore(project: string): Ignore {
  const rules = ignore();
  for (const name of ['.gitignore', '.ignore']) {
    const file = join(project, name);
    if (existsSync(file)) rules.add(readFileSync(file, 'utf8'));
  }
  return rules;
}
