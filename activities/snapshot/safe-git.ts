import { execFile } from 'node:child_process';

/**
 * Settings every git Loom runs gets, over any repository's own. Loom runs git outside the sandbox
 * over folders an agent can write, `.git` included: nothing there may choose a program for it to run.
 */
const SETTINGS: [string, string][] = [
  // No hooks: post-checkout, post-index-change, reference-transaction, pre-auto-gc, …
  ['core.hooksPath', '/dev/null'],
  // No fsmonitor hook (nor the built-in daemon).
  ['core.fsmonitor', 'false'],
  ['core.pager', 'cat'],
  ['core.editor', ':'],
  ['credential.helper', ''],
  ['submodule.recurse', 'false'],
  ['commit.gpgSign', 'false'],
  // No `git gc --auto` or maintenance started behind a command.
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  // Files as they are on disk: no line-ending conversion.
  ['core.autocrlf', 'false'],
];

/**
 * The environment of every git Loom runs: the worker's PATH and HOME, none of the user's or the
 * system's git configuration, and no transport at all (`GIT_ALLOW_PROTOCOL` empty wins over any
 * `protocol.*.allow`), so nothing fetches lazily, starts an ssh command or a remote helper.
 */
function environment(): Record<string, string> {
  const env: Record<string, string> = {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_ALLOW_PROTOCOL: '',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    // Commits Loom makes (snapshots, copies) and the reflog of a fork's branch are Loom's.
    GIT_AUTHOR_NAME: 'Loom',
    GIT_AUTHOR_EMAIL: 'loom@localhost',
    GIT_COMMITTER_NAME: 'Loom',
    GIT_COMMITTER_EMAIL: 'loom@localhost',
  };
  if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
  if (process.env.HOME !== undefined) env.HOME = process.env.HOME;
  return env;
}

/** Settings as `-c key=value` (which every git knows; the command line wins over every file). */
function commandLine(settings: [string, string][]): string[] {
  return settings.flatMap(([key, value]) => ['-c', `${key}=${value}`]);
}

export interface GitRun {
  /** The folder git runs in. */
  cwd: string;
  /** Where, for errors: `git <command> <where>: <git's message>`. */
  where: string;
  /** git's own options, before the command (`--git-dir`, `--work-tree`). */
  options?: string[];
  /** More variables (`GIT_INDEX_FILE`, …), never settings: those are `SETTINGS`'. */
  env?: Record<string, string>;
  input?: Buffer | string;
  maxBuffer?: number;
  /**
   * The repository is not Loom's own (the project's, or a fork's worktree of it): the filters its
   * configuration defines are switched off as well.
   */
  foreign?: boolean;
}

/** Runs git with `SETTINGS` and nothing of the user's; rejects with git's own message. */
export async function safeGit(args: string[], run: GitRun): Promise<Buffer> {
  const settings = run.foreign ? [...SETTINGS, ...(await filtersOff(run))] : SETTINGS;
  return execGit(args, run, settings, { ...environment(), ...run.env });
}

/**
 * Every filter the repository's configuration defines (`filter.<name>.clean/smudge/process`, which
 * `.gitattributes` selects file by file), switched off: an empty command runs nothing, and
 * `required=false` lets git go on without it instead of failing. Read where the command runs, so
 * the same `include`/`includeIf` apply. A name `-c` cannot carry (`a=b`) is refused.
 */
async function filtersOff(run: GitRun): Promise<[string, string][]> {
  const listed = await execGit(
    ['config', '--null', '--name-only', '--get-regexp', '^filter\\.'],
    run,
    SETTINGS,
    environment(),
  ).catch((error: Error & { code?: unknown }) => {
    // Exit 1: no such setting.
    if (error.code === 1) return Buffer.alloc(0);
    throw error;
  });
  const names = new Set<string>();
  for (const key of listed.toString('utf8').split('\0')) {
    const name = /^filter\.(.+)\.[^.]+$/s.exec(key)?.[1];
    if (name === undefined) continue;
    if (name.includes('='))
      throw new Error(
        `git ${run.where}: the repository's configuration defines a filter named "${name}", which Loom cannot switch off (a name with "="); remove or rename it.`,
      );
    names.add(name);
  }
  return [...names].flatMap((name): [string, string][] => [
    [`filter.${name}.clean`, ''],
    [`filter.${name}.smudge`, ''],
    [`filter.${name}.process`, ''],
    [`filter.${name}.required`, 'false'],
  ]);
}

function execGit(
  args: string[],
  run: GitRun,
  settings: [string, string][],
  env: Record<string, string>,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      [...commandLine(settings), ...(run.options ?? []), ...args],
      { cwd: run.cwd, env, encoding: 'buffer', maxBuffer: run.maxBuffer ?? 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const failure = new Error(`git ${args[0]} ${run.where}: ${stderr.toString().trim() || error.message}`);
        reject(Object.assign(failure, { code: error.code }));
      },
    );
    child.stdin!.end(run.input);
  });
}
