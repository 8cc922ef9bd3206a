import { spawn } from 'node:child_process';
import { basename, relative, resolve } from 'node:path';
import { ToolError } from '../running/tool-handler.js';
import {
  ALWAYS_IGNORED,
  MAX_FILE_BYTES,
  includePattern,
  invalidRegex,
  searchTarget,
  type ContentMatch,
  type SearchBackend,
  type SearchTarget,
} from './backend.js';

/**
 * The search through ripgrep, which reads nested `.gitignore`, `.ignore` and git's global excludes
 * on its own. Patterns are matched here with picomatch rather than passed as `--glob`: a ripgrep
 * glob re-includes files that `.gitignore` excludes, and its dialect differs. ripgrep runs with
 * `env`, the worker's environment without credentials (`searchBackend`), never `shell_env`, and
 * every value a tool call gives goes after a flag that takes it (`--regexp`, `--glob=`) or after
 * `--`, so no argument becomes a flag of ripgrep's (`--pre` would run a program).
 */
export function ripgrepBackend(rg: string, env: NodeJS.ProcessEnv): SearchBackend {
  return {
    name: 'ripgrep',

    async listFiles(root, options) {
      const target = await searchTarget(root, options.glob, options);
      if (!target) return [];
      // `ignore` globs are relative to the root, as ripgrep's are to its working directory.
      const cwd = target.file ? target.dir : root;
      const extra = (options.ignore ?? []).map((glob) => `--glob=!${glob}`);
      const stdout = await ripgrep(
        rg,
        env,
        ['--files', '--null', ...walkArgs(target), ...extra, '--', where(target, cwd)],
        cwd,
        options.signal,
      );
      return stdout
        .split('\0')
        .filter(Boolean)
        .map((path) => resolve(cwd, path))
        .filter((path) => target.matches(relative(target.dir, path)));
    },

    async searchContent(root, options) {
      const target = await searchTarget(root, includePattern(options.include), options);
      if (!target) return [];
      const cwd = target.file ? target.dir : root;
      const args = ['-nH', '--null', '--no-heading', '--field-match-separator=|', `--max-filesize=${MAX_FILE_BYTES}`];
      args.push(...walkArgs(target), '--regexp', options.pattern, '--', where(target, cwd));
      const stdout = await ripgrep(rg, env, args, cwd, options.signal, options.pattern);
      const matches: ContentMatch[] = [];
      for (const record of stdout.split('\n')) {
        // `path\0line|text`; anything else (a "binary file matches" notice) is not a match.
        const nul = record.indexOf('\0');
        const found = /^(\d+)\|/.exec(record.slice(nul + 1));
        if (nul < 0 || !found) continue;
        const path = resolve(cwd, record.slice(0, nul));
        if (target.matches(relative(target.dir, path))) {
          matches.push({ path, line: Number(found[1]), text: record.slice(nul + 1 + found[0].length) });
        }
      }
      return matches;
    },
  };
}

/** The flags both searches share: hidden files, ignore files even outside a git repo, no config. */
function walkArgs(target: SearchTarget): string[] {
  const args = [
    '--no-config',
    '--no-messages',
    '--hidden',
    '--no-require-git',
    ...ALWAYS_IGNORED.map((name) => `--glob=!${name}`),
  ];
  if (target.nameGlob) args.push(`--type-add=loom:${target.nameGlob}`, '--type=loom');
  // ripgrep counts the searched folder itself as depth 0.
  if (target.maxDepth !== undefined) args.push(`--max-depth=${target.maxDepth}`);
  return args;
}

/** The path to hand ripgrep, relative to its working directory so its globs anchor there. */
function where(target: SearchTarget, cwd: string): string {
  return target.file ? basename(target.file) : relative(cwd, target.dir) || '.';
}

/**
 * Runs ripgrep, killing it when `signal` aborts. Exit 1 means nothing found; exit 2 with nothing
 * on stderr means some files could not be read, which `--no-messages` keeps quiet.
 */
function ripgrep(
  rg: string,
  env: NodeJS.ProcessEnv,
  args: string[],
  cwd: string,
  signal: AbortSignal,
  pattern?: string,
): Promise<string> {
  signal.throwIfAborted();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(rg, args, { cwd, env, signal, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error) => reject(signal.aborted ? signal.reason : error));
    child.on('close', (code) => {
      if (signal.aborted) return reject(signal.reason);
      const message = Buffer.concat(stderr).toString('utf8').trim();
      if (code === 0 || code === 1 || (code === 2 && !message))
        return resolvePromise(Buffer.concat(stdout).toString('utf8'));
      if (pattern !== undefined && /\bregex\b/i.test(message))
        return reject(invalidRegex(pattern, message.replace(/^rg: /, '')));
      reject(new ToolError(`ripgrep (${rg}) failed with exit code ${code}: ${message || 'no message'}`));
    });
  });
}
