import { homedir } from 'node:os';
import { resolvePath } from '../../core/text/path.js';
import { wildcardMatch, type PermissionRequest, type Ruleset } from '../../core/rules/permission.js';
import { alwaysPattern } from '../../core/rules/shell-commands.js';
import type { CheckContext } from './check-context.js';
import { mergeRequests } from './merge-requests.js';
import { ReachedFolders, type Reach } from './reached-folders.js';
import { realPathOf } from './real-path.js';
import { analyseLine } from './shell/analyse-line.js';
import { pathWords, readWords, redirectReads, redirectWords } from './shell/paths.js';
import type { ShellWord } from './shell/words.js';

/** Files a `read` rule guards by default (core/agents/builtin.ts asks for them). */
const SECRET_FILES = ['*.env', '*.env.*'];

/**
 * A bash call's permissions, from a real parse of the line: every command it would run (inside
 * `$(…)`, backticks, process substitutions, subshells, groups, pipelines, lists, and what `sudo`,
 * `env`, `timeout`, `xargs`, `bash -c`… run) is checked on its own; every path it names or
 * redirects to is checked where it really leads; files a `read` rule guards (`.env`) ask as a
 * read would. Folders outside the project ask as `external_directory`, those written apart from
 * those only read, saying what approving opens in the sandbox (reached-folders.ts). What cannot be
 * known before the line runs (a syntax error, `eval`, `bash -c "$X"`, a command named by a
 * variable, a command git takes from a setting the line does not show) asks for the whole line,
 * and no catch-all rule allows that. `planned` (the spec's request for the whole line) is replaced
 * by what the parse finds; any other request planned is kept.
 */
export async function bashPermissions(
  input: { command: string; workdir?: string },
  planned: PermissionRequest[],
  context: CheckContext & { readRules?: Ruleset },
): Promise<PermissionRequest[]> {
  const line = input.command;
  const analysis = await analyseLine(line);
  const unparsed: PermissionRequest[] = analysis.unsupported.length
    ? [
        {
          permission: 'bash',
          patterns: [line],
          always: [],
          explicit: true,
          reason: `Loom cannot check this command line part by part: ${analysis.unsupported.join('; ')}.`,
        },
      ]
    : [];
  const cwd = resolvePath(context.directory, input.workdir ?? '.');
  const home = context.home ?? homedir();
  const secrets = [...SECRET_FILES, ...guardedByRules(context.readRules)];
  const folders = new ReachedFolders(realPathOf(context.directory), realPathOf(home));
  const reads = new Set<string>();
  const reach = (word: ShellWord, how: Reach) => {
    const path = staticPath(word, cwd, home);
    // Known only when the line runs (`$HOME/x`, `~user`, `{a,/etc}`): taken as outside.
    if (path === undefined) folders.unknown(word.raw, how);
    // `cp a /elsewhere/` puts the file in that folder.
    else folders.known(realPathOf(path), { ...how, folder: how.folder || (word.value ?? '').endsWith('/') });
  };
  const read = (word: ShellWord) => {
    const path = staticPath(word, cwd, home);
    if (path === undefined) return;
    for (const candidate of new Set([path, realPathOf(path)])) {
      if (secrets.some((pattern) => wildcardMatch(candidate, pattern))) reads.add(candidate);
    }
  };

  // The commands of the line write where they run.
  reach({ raw: cwd, value: cwd }, { folder: true, write: true });
  for (const command of analysis.commands) {
    for (const { word, ...how } of pathWords(command.words)) reach(word, how);
    for (const word of readWords(command.words)) read(word);
  }
  for (const { word, ...how } of redirectWords(analysis.redirects)) reach(word, how);
  for (const word of redirectReads(analysis.redirects)) read(word);

  const wordsByText = new Map<string, ShellWord[]>();
  for (const command of analysis.commands) {
    const text = command.text.trim();
    if (text !== '' && !wordsByText.has(text)) wordsByText.set(text, command.words);
  }
  const texts = [...wordsByText.keys()];
  const always = [...new Set([...wordsByText.values()].map(alwaysPattern).filter((pattern) => pattern !== ''))];
  return [
    ...folders.requests(),
    ...mergeRequests(
      planned.filter((request) => request.permission !== 'bash'),
      reads.size ? [{ permission: 'read', patterns: [...reads], always: ['*'] }] : [],
      [{ permission: 'bash', patterns: texts.length ? texts : [line.trim()], always }],
    ),
    ...unparsed,
  ];
}

/** Where a word leads, `~` expanded; `undefined` when only the running shell knows. */
function staticPath(word: ShellWord, cwd: string, home: string): string | undefined {
  const value = word.value;
  if (value === undefined || /\{[^}]*(,|\.\.)[^}]*\}/.test(value)) return undefined;
  if (value === '~' || value.startsWith('~/')) return resolvePath('/', home + value.slice(1));
  if (value.startsWith('~')) return undefined;
  return resolvePath(cwd, value);
}

/** Paths a `read` rule singles out to ask or deny (`/srv/secrets/*`), besides the defaults. */
function guardedByRules(rules: Ruleset | undefined): string[] {
  return (rules ?? [])
    .filter((rule) => wildcardMatch('read', rule.permission) && rule.action !== 'allow' && !/^\*+$/.test(rule.pattern))
    .map((rule) => rule.pattern);
}
