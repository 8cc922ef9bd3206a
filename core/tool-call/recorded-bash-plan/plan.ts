/**
 * FROZEN. The permissions of a bash call exactly as Loom planned them for runs recorded before the
 * model activity planned tool calls (workflows/session/tool-calls.ts `planRecordedCalls`): a
 * hand-written scanner splits the line, and these tables give "always" prefixes and folders.
 * Those runs must replay as they ran, asks and "always" answers included, so nothing here may
 * change, not even the tables: they are a copy of what the scanner used then, not the command
 * table of today (core/shell-commands.ts). New runs parse lines with activities/permissions/shell.
 */
import { dirnamePath, resolvePath } from '../../path.js';
import type { PermissionRequest } from '../../permission.js';
import type { PermissionContext } from '../spec.js';
import { externalDirectory } from '../permissions.js';
import { commandWords, words } from './command-words.js';
import { splitCommands } from './split-commands.js';

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
export function alwaysPattern(command: string): string {
  const list = words(command);
  if (list.length === 0) return '';
  let arity = 1;
  for (let length = list.length; length > 0; length--) {
    const known =
      ARITY[
        list
          .slice(0, length)
          .map((word) => word.text)
          .join(' ')
      ];
    if (known !== undefined) {
      arity = known;
      break;
    }
  }
  // Written as in the command, quotes kept, so the pattern matches the command's own text.
  return `${list
    .slice(0, arity)
    .map((word) => word.raw)
    .join(' ')} *`;
}

const PATH_COMMANDS = new Set([
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
]);

/**
 * Words of commands that take paths (cd, rm, cp, mv, mkdir, …), minus options, for
 * external-directory checks. Redirection targets are not included, as in OpenCode.
 */
export function pathArguments(command: string): string[] {
  const [name, ...args] = commandWords(command);
  if (name === undefined || !PATH_COMMANDS.has(name)) return [];
  const paths: string[] = [];
  let options = true;
  for (const arg of args) {
    if (options && arg === '--') options = false;
    else if (options && arg.startsWith('-') && arg !== '-') continue;
    else if (arg !== '-') paths.push(arg);
  }
  // chmod's mode and chown's owner come first (`chmod 755 x`, `chmod +x x`), unless given by --reference.
  const modeFirst =
    (name === 'chmod' || name === 'chown' || name === 'chgrp') && !args.some((arg) => arg.startsWith('--reference'));
  return modeFirst ? paths.slice(1) : paths;
}

/** Commands whose path arguments are folders; for the others, a path's folder is what is reached. */
const FOLDER_COMMANDS = new Set(['cd', 'pushd', 'ls', 'mkdir', 'rmdir', 'find', 'tree', 'du']);

/**
 * A recorded bash call's permissions: folders outside the project it works in or names (`cd`,
 * `rm`, …), then each command of the line, with "always" offering the command's prefix.
 */
export function recordedBashPlan(
  command: string,
  workdir: string | undefined,
  context: PermissionContext,
): PermissionRequest[] {
  const cwd = resolvePath(context.directory, workdir ?? '.');
  const commands = splitCommands(command);
  const folders = new Set<string>([cwd]);
  for (const part of commands) {
    const takesFolders = FOLDER_COMMANDS.has(commandWords(part)[0] ?? '');
    for (const argument of pathArguments(part)) {
      if (argument.includes('$') || argument.includes('`')) continue;
      const target = resolvePath(cwd, argument);
      folders.add(takesFolders ? target : dirnamePath(target));
    }
  }
  const external = [...folders].flatMap((folder) => externalDirectory(context, folder));
  const unique = [...new Set(external.flatMap((request) => request.patterns))];
  return [
    ...(unique.length ? [{ permission: 'external_directory', patterns: unique, always: unique }] : []),
    {
      permission: 'bash',
      patterns: commands.length ? commands : [command.trim()],
      always: [...new Set(commands.map(alwaysPattern))],
    },
  ];
}
