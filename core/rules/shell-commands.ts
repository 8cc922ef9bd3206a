/**
 * What Loom knows about the commands a bash line runs, for asking permission: how many words name
 * a command for an "always" answer, which commands take paths or folders, which edit files in
 * place, and how git runs programs of its own. activities/permissions/shell reads lines with these.
 */

/** A word of a command: as written, and its value when the line alone decides it. */
export interface CommandWord {
  raw: string;
  value?: string;
}

/**
 * How many words name a command (`git commit`, `npm run dev`); the longest listed prefix wins,
 * and an unlisted command is its first word. As in OpenCode, options count as words.
 */
const ARITY: Record<string, number> = {
  apt: 2,
  'apt-get': 2,
  aws: 3,
  az: 3,
  bazel: 2,
  brew: 2,
  bundle: 2,
  'bundle exec': 3,
  bun: 2,
  'bun run': 3,
  'bun x': 3,
  bunx: 2,
  cargo: 2,
  'cargo add': 3,
  'cargo run': 3,
  cmake: 2,
  composer: 2,
  deno: 2,
  'deno task': 3,
  docker: 2,
  'docker builder': 3,
  'docker compose': 3,
  'docker container': 3,
  'docker image': 3,
  'docker network': 3,
  'docker volume': 3,
  'docker-compose': 2,
  dotnet: 2,
  firebase: 2,
  flyctl: 2,
  gcloud: 3,
  gem: 2,
  gh: 3,
  git: 2,
  'git config': 3,
  'git remote': 3,
  'git stash': 3,
  go: 2,
  gradle: 2,
  helm: 2,
  kubectl: 2,
  'kubectl rollout': 3,
  mix: 2,
  mvn: 2,
  npm: 2,
  'npm exec': 3,
  'npm init': 3,
  'npm run': 3,
  'npm view': 3,
  npx: 2,
  nx: 2,
  pip: 2,
  pip3: 2,
  pipenv: 2,
  'pipenv run': 3,
  pnpm: 2,
  'pnpm dlx': 3,
  'pnpm exec': 3,
  'pnpm run': 3,
  pnpx: 2,
  podman: 2,
  poetry: 2,
  'poetry run': 3,
  pulumi: 2,
  rails: 2,
  rustup: 2,
  swift: 2,
  systemctl: 2,
  terraform: 2,
  'terraform workspace': 3,
  turbo: 2,
  uv: 2,
  'uv pip': 3,
  'uv run': 3,
  vercel: 2,
  yarn: 2,
  'yarn dlx': 3,
  'yarn run': 3,
  'yarn workspace': 3,
};

/** The "always" pattern for a command: its first N words + " *", N from the arity table; `''` for no command. */
export function alwaysPattern(words: CommandWord[]): string {
  if (words.length === 0) return '';
  let arity = 1;
  for (let length = words.length; length > 0; length--) {
    const known =
      ARITY[
        words
          .slice(0, length)
          .map((word) => word.value ?? word.raw)
          .join(' ')
      ];
    if (known !== undefined) {
      arity = known;
      break;
    }
  }
  // Written as in the command, quotes kept, so the pattern matches the command's own text.
  return `${words
    .slice(0, arity)
    .map((word) => word.raw)
    .join(' ')} *`;
}

/** Commands whose arguments (options left out) are paths they read, write or work in. */
export const PATH_COMMANDS = new Set([
  'cat',
  'cd',
  'chgrp',
  'chmod',
  'chown',
  'cp',
  'du',
  'find',
  'head',
  'less',
  'ln',
  'ls',
  'mkdir',
  'more',
  'mv',
  'pushd',
  'rm',
  'rmdir',
  'stat',
  'tail',
  'tee',
  'touch',
  'tree',
  'truncate',
  'unlink',
  'install',
  'rsync',
  'source',
  '.',
]);

/** Commands whose path arguments are folders; for the others, a path's folder is what is reached. */
export const FOLDER_COMMANDS = new Set(['cd', 'pushd', 'ls', 'mkdir', 'rmdir', 'find', 'tree', 'du']);

/**
 * Path commands that write in every path they are given (`mv` takes its files away from where they
 * were; `cd` and `pushd` go where the commands after them write). The others of PATH_COMMANDS read,
 * but for the destination of COPYING_COMMANDS.
 */
export const WRITING_COMMANDS = new Set([
  'cd',
  'chgrp',
  'chmod',
  'chown',
  'mkdir',
  'mv',
  'pushd',
  'rm',
  'rmdir',
  'tee',
  'touch',
  'truncate',
  'unlink',
]);

/** Commands whose destination (the last path, or `-t`'s) is written: into it, when it is a folder. */
export const COPYING_COMMANDS = new Set(['cp', 'mv', 'ln', 'install', 'rsync']);

/**
 * How a command that rewrites files reads its arguments. Options are named as written, `-i` or
 * `--in-place`; a short option's value is attached (`-e'…'`) or the next word.
 */
export interface FileEditor {
  /** Short options that take a value. */
  valued: string;
  /** Short options whose value, if any, is attached: the part of the rest of the word that matches. */
  attached?: Record<string, RegExp>;
  /** Long options that take the next word as their value unless written `--name=value`. */
  long?: string[];
  /** When its file operands are written: with one of these options (and that value), always, or never. */
  writes: { options: string[]; value?: RegExp } | 'always' | 'never';
  /** Options that give the program; without one, the first operand is the program (`sed s/a/b/ f`). */
  program?: string[];
  /** Options whose value is a file it writes (`sort -o out`). */
  output?: string[];
  /** Options whose value is the folder it works in (`patch -d dir`). */
  directory?: string[];
  /** Operands that are no file (`awk`'s `name=value`). */
  notFile?: RegExp;
  /** Words starting with `+` are options (`ex +cmd file`). */
  plusOptions?: boolean;
}

const REST = /^.*/s;
const AWK: FileEditor = {
  valued: 'fFvieElW',
  attached: { d: REST, D: REST, o: REST, p: REST, L: REST },
  long: ['--file', '--field-separator', '--assign', '--include', '--source', '--exec', '--load'],
  writes: { options: ['-i', '--include'], value: /^inplace(\.awk)?$/ },
  program: ['-f', '--file', '-e', '--source', '-E', '--exec'],
  notFile: /^[A-Za-z_][A-Za-z0-9_]*=/,
};

/** Commands that write the files they are given: in-place editors, and `sort -o`. */
export const FILE_EDITORS: Record<string, FileEditor> = {
  // GNU: `-ie` is `-i` with the backup suffix `e`; BSD's `-i ''` reads as a script here, which only adds a file.
  sed: {
    valued: 'efl',
    attached: { i: REST, I: REST },
    long: ['--expression', '--file', '--line-length'],
    writes: { options: ['-i', '-I', '--in-place'] },
    program: ['-e', '--expression', '-f', '--file'],
  },
  perl: {
    valued: 'eE',
    attached: {
      i: REST,
      I: REST,
      M: REST,
      m: REST,
      x: REST,
      F: REST,
      d: REST,
      D: REST,
      V: REST,
      C: /^[0-9A-Za-z]*/,
      l: /^[0-7]*/,
      '0': /^(x[0-9a-fA-F]*|[0-7]*)/,
    },
    writes: { options: ['-i'] },
    program: ['-e', '-E'],
  },
  ruby: {
    valued: 'eIrCE',
    attached: { i: REST, x: REST, F: REST, '0': /^[0-7]*/, W: /^[0-2]?/ },
    writes: { options: ['-i'] },
    program: ['-e'],
  },
  awk: AWK,
  gawk: AWK,
  sort: {
    valued: 'kotTS',
    long: [
      '--key',
      '--output',
      '--field-separator',
      '--temporary-directory',
      '--buffer-size',
      '--parallel',
      '--files0-from',
      '--random-source',
      '--compress-program',
      '--batch-size',
      '--sort',
    ],
    writes: 'never',
    output: ['-o', '--output'],
  },
  patch: {
    valued: 'BDdFgioprVYz',
    long: [
      '--prefix',
      '--ifdef',
      '--directory',
      '--fuzz',
      '--get',
      '--input',
      '--output',
      '--strip',
      '--reject-file',
      '--version-control',
      '--basename-prefix',
      '--suffix',
      '--quoting-style',
    ],
    writes: 'always',
    output: ['-o', '--output', '-r', '--reject-file'],
    directory: ['-d', '--directory'],
  },
  ed: { valued: 'p', long: ['--prompt'], writes: 'always' },
  ex: { valued: 'cSuiTwWtq', long: ['--cmd'], writes: 'always', plusOptions: true },
};

/**
 * git settings whose value is a command git runs, lower-cased; `*` stands for a subsection
 * (`diff.<driver>.textconv`). Set with `git -c`, `git clone --config` or `git config`.
 */
const GIT_COMMAND_SETTINGS = [
  'alias.*',
  'core.pager',
  'core.editor',
  'core.sshcommand',
  'core.fsmonitor',
  'core.askpass',
  'core.gitproxy',
  'core.alternaterefscommand',
  'sequence.editor',
  'diff.external',
  'diff.*.textconv',
  'diff.*.command',
  'merge.*.driver',
  'filter.*.clean',
  'filter.*.smudge',
  'filter.*.process',
  'credential.helper',
  'credential.*.helper',
  'gpg.program',
  'gpg.*.program',
  'gpg.ssh.defaultkeycommand',
  'pager.*',
  'uploadpack.packobjectshook',
  'remote.*.uploadpack',
  'remote.*.receivepack',
  'interactive.difffilter',
  'mergetool.*.cmd',
  'mergetool.*.path',
  'difftool.*.cmd',
  'difftool.*.path',
  'man.*.cmd',
  'man.*.path',
  'browser.*.cmd',
  'browser.*.path',
  'sendemail.sendmailcmd',
  'sendemail.tocmd',
  'sendemail.cccmd',
  'trailer.*.command',
  'trailer.*.cmd',
  'submodule.*.update',
];

/** git settings that make it run programs the line does not show: hooks, other config files, the `ext::` transport. */
const GIT_HIDDEN_SETTINGS = [
  'core.hookspath',
  'include.path',
  'includeif.*.path',
  'init.templatedir',
  'protocol.allow',
  'protocol.ext.allow',
];

/** Whether a git setting makes git run a command (its value), run programs the line does not show, or neither. */
export function gitSettingKind(key: string): 'command' | 'hidden' | undefined {
  const lower = key.toLowerCase();
  const matches = (pattern: string) =>
    new RegExp(`^${pattern.replaceAll('.', '\\.').replaceAll('*', '.+')}$`).test(lower);
  if (GIT_COMMAND_SETTINGS.some(matches)) return 'command';
  if (GIT_HIDDEN_SETTINGS.some(matches)) return 'hidden';
  return undefined;
}

/**
 * Options of git commands whose value is a command git runs (`rebase -x 'npm test'`), short and
 * long, and short options taking a value of another kind, so their value is not read as options.
 */
export const GIT_COMMAND_OPTIONS: Record<string, { short?: string; long: string[]; valued?: string }> = {
  rebase: { short: 'x', long: ['--exec'], valued: 'sXC' },
  clone: { short: 'u', long: ['--upload-pack'], valued: 'bojc' },
  fetch: { long: ['--upload-pack'] },
  pull: { long: ['--upload-pack'] },
  push: { long: ['--receive-pack', '--exec'] },
  'ls-remote': { long: ['--upload-pack', '--exec'] },
  archive: { long: ['--exec'] },
  'fetch-pack': { long: ['--upload-pack', '--exec'] },
  'send-pack': { long: ['--receive-pack', '--exec'] },
  difftool: { short: 'x', long: ['--extcmd'], valued: 't' },
  'filter-branch': {
    long: [
      '--setup',
      '--env-filter',
      '--tree-filter',
      '--index-filter',
      '--parent-filter',
      '--msg-filter',
      '--commit-filter',
      '--tag-name-filter',
    ],
  },
  'send-email': { long: ['--sendmail-cmd', '--to-cmd', '--cc-cmd', '--header-cmd'] },
  daemon: { long: ['--access-hook'] },
  // Its pager, `-O<pager>` or `--open-files-in-pager=<pager>`, is only ever attached.
  grep: { long: [], valued: 'efABCm' },
};

/** Options of git commands that take settings (`git clone -c core.hooksPath=…`), checked as `git -c` ones. */
export const GIT_SETTING_OPTIONS: Record<string, { short?: string; long: string[] }> = {
  clone: { short: 'c', long: ['--config'] },
};

/** Options of git commands that make it run programs the line does not show. */
export const GIT_HIDDEN_OPTIONS: Record<string, string[]> = {
  clone: ['--template'],
  init: ['--template'],
};

/**
 * Environment variables whose value is a command git (or, for the last three, git and others) runs.
 * A pager of `cat` or nothing is no pager.
 */
export const COMMAND_VARIABLES = new Set([
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'GIT_EXTERNAL_DIFF',
  'GIT_PAGER',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_PROXY_COMMAND',
  'PAGER',
  'EDITOR',
  'VISUAL',
]);

/**
 * Environment variables that hand git settings or programs the line
 * does not show; `/dev/null` as a config file is none.
 */
export const HIDDEN_VARIABLES =
  /^(GIT_CONFIG_PARAMETERS|GIT_CONFIG_COUNT|GIT_CONFIG_KEY_\d+|GIT_CONFIG_VALUE_\d+|GIT_CONFIG|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_EXEC_PATH|GIT_TEMPLATE_DIR)$/;
