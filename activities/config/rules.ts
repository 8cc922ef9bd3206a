import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import type { RulesFile } from './files.js';
import type { ConfigLayer } from './load.js';
import { configDir } from '../process/paths.js';
import { errorMessage } from '../../core/text/error-message.js';

/** A rules file longer than this is cut, with a note saying so. */
export const RULES_LIMIT_BYTES = 64 * 1024;
/** How long a rules URL may take to answer. */
const URL_TIMEOUT_MS = 5_000;

/** An `https://` (or `http://`) entry of `instructions`, and the config file that names it. */
export interface RulesUrl {
  url: string;
  source: string;
}

/**
 * How a rules URL is named to the model and in messages: without its user, password and query,
 * where an `{env:…}` token would otherwise reach the model's prompt.
 */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url.replace(/[?#].*$/, '');
  }
}

const truthy = (value: string | undefined) => value === '1' || value?.toLowerCase() === 'true';

/**
 * The rules a run's agents get in their system prompt, as OpenCode finds them:
 *
 * 1. the user's global file: the first of Loom's global `AGENTS.md`, OpenCode's
 *    (`~/.config/opencode/AGENTS.md`) and Claude Code's `~/.claude/CLAUDE.md`;
 * 2. the project's: every `AGENTS.md` from the repository's root (the filesystem's root outside
 *    git) down to `directory`, the nearest last; where there is none, every `CLAUDE.md` instead;
 * 3. the files of each config layer's `instructions`: paths relative to that config file's
 *    folder (to `directory` for `LOOM_CONFIG_CONTENT`), `~/` for the home folder, and a `*` or
 *    `?` glob in a path's last part; its `http(s)://` entries are returned as `urls`, for
 *    `fetchRulesUrls`.
 *
 * `OPENCODE_DISABLE_CLAUDE_CODE_PROMPT` (or `OPENCODE_DISABLE_CLAUDE_CODE`) leaves every
 * `CLAUDE.md` out; `OPENCODE_DISABLE_PROJECT_CONFIG` the project's files. A file is read once,
 * however many ways name it. `problems` are the files `instructions` names that are not there,
 * and the project's files that link out of the repository (see `projectRules`).
 */
export function findRules(
  directory: string,
  env: NodeJS.ProcessEnv,
  layers: ConfigLayer[],
): { rules: RulesFile[]; urls: RulesUrl[]; problems: string[] } {
  const claude = !truthy(env.OPENCODE_DISABLE_CLAUDE_CODE_PROMPT) && !truthy(env.OPENCODE_DISABLE_CLAUDE_CODE);
  const problems: string[] = [];
  const paths: string[] = [];
  const urls: RulesUrl[] = [];
  const home = env.HOME ?? homedir();
  const global = globalRules(env, home, claude);
  if (global) paths.push(global);
  if (!truthy(env.OPENCODE_DISABLE_PROJECT_CONFIG)) paths.push(...projectRules(resolve(directory), claude, problems));
  for (const layer of layers) {
    for (const entry of layer.config.instructions ?? []) {
      if (/^https?:\/\//i.test(entry)) {
        if (!urls.some((known) => known.url === entry)) urls.push({ url: entry, source: layer.source });
        continue;
      }
      const base = layer.source === 'LOOM_CONFIG_CONTENT' ? directory : dirname(layer.source);
      const found = instructionFiles(entry, base, home);
      if (found === undefined) problems.push(`${layer.source}: "instructions" names ${entry}, which is not a file`);
      else paths.push(...found);
    }
  }
  const rules = [...new Set(paths)].flatMap((path) => {
    const text = readRules(path);
    return text === undefined || !text.trim() ? [] : [{ source: path, text: capped(text) }];
  });
  return { rules, urls, problems };
}

/**
 * The rules `urls` serve, fetched once when a run starts (its agents' every step reads the same
 * text), each within 5 s; one that fails is a problem naming the URL and its config file, and
 * the run goes on without it.
 */
export async function fetchRulesUrls(urls: RulesUrl[]): Promise<{ rules: RulesFile[]; problems: string[] }> {
  const fetched = await Promise.all(
    urls.map(async ({ url, source }) => {
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(URL_TIMEOUT_MS), redirect: 'follow' });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const text = await response.text();
        return { rule: text.trim() ? { source: shownUrl(url), text: capped(text) } : undefined };
      } catch (error) {
        const reason =
          error instanceof Error && error.name === 'TimeoutError' ? 'no answer within 5 s' : errorMessage(error);
        return { problem: `${source}: "instructions" names ${shownUrl(url)}, which could not be fetched (${reason})` };
      }
    }),
  );
  return {
    rules: fetched.flatMap((result) => (result.rule ? [result.rule] : [])),
    problems: fetched.flatMap((result) => (result.problem ? [result.problem] : [])),
  };
}

/** The system prompt's part for `rules`: each file under the line OpenCode puts before it. */
export function rulesPrompt(rules: readonly RulesFile[]): string {
  return rules.map((rule) => `Instructions from: ${rule.source}\n${rule.text}`).join('\n\n');
}

function globalRules(env: NodeJS.ProcessEnv, home: string, claude: boolean): string | undefined {
  const candidates = [
    join(configDir(env), 'AGENTS.md'),
    join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'opencode', 'AGENTS.md'),
    ...(claude ? [join(home, '.claude', 'CLAUDE.md')] : []),
  ];
  return candidates.find(isFile);
}

/**
 * The project's `AGENTS.md` (else `CLAUDE.md`) files, the root's first. One that links out of the
 * repository (out of its own folder outside git) is skipped as a problem: an agent that may write
 * in the project must not make the next run's prompt carry a file it could not read, such as a
 * link to `~/.ssh` or an `.env` elsewhere. `CLAUDE.md -> AGENTS.md` in the repository is fine.
 */
function projectRules(directory: string, claude: boolean, problems: string[]): string[] {
  const folders = foldersUpToRoot(directory);
  const top = folders[folders.length - 1];
  const repository = exists(join(top, '.git')) ? top : undefined;
  for (const name of claude ? ['AGENTS.md', 'CLAUDE.md'] : ['AGENTS.md']) {
    const found = [...folders]
      .reverse()
      .map((folder) => join(folder, name))
      .filter(isFile);
    if (!found.length) continue;
    return found.filter((file) => {
      const inside = within(file, repository ?? dirname(file));
      if (!inside) problems.push(`${file} links out of ${repository ?? dirname(file)}, so it is not read as rules`);
      return inside;
    });
  }
  return [];
}

/** Whether `file`, links followed, is inside `folder` (links followed too). */
function within(file: string, folder: string): boolean {
  try {
    return realpathSync(file).startsWith(realpathSync(folder) + sep);
  } catch {
    return false;
  }
}

/** `directory` and its parents up to the repository's root (the folder holding `.git`), or to `/` outside git. */
function foldersUpToRoot(directory: string): string[] {
  const folders = [directory];
  let folder = directory;
  while (!exists(join(folder, '.git')) && dirname(folder) !== folder) {
    folder = dirname(folder);
    folders.push(folder);
  }
  return folders;
}

/** The files `entry` names (a glob in its last part may name several, or none); undefined for a missing file. */
function instructionFiles(entry: string, base: string, home: string): string[] | undefined {
  const expanded = entry.startsWith('~/') ? join(home, entry.slice(2)) : entry;
  const path = isAbsolute(expanded) ? expanded : resolve(base, expanded);
  const name = basename(path);
  if (!picomatch.scan(name).isGlob) return isFile(path) ? [path] : undefined;
  const matches = picomatch(name, { dot: true });
  const folder = dirname(path);
  let names: string[];
  try {
    names = readdirSync(folder).sort();
  } catch {
    return [];
  }
  return names
    .filter((candidate) => matches(candidate))
    .map((candidate) => join(folder, candidate))
    .filter(isFile);
}

function readRules(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** `text` cut to 64 KiB with a note, when it is longer. */
function capped(text: string): string {
  const size = Buffer.byteLength(text);
  if (size <= RULES_LIMIT_BYTES) return text;
  const kept = Buffer.from(text)
    .subarray(0, RULES_LIMIT_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${kept}\n\n[Loom cut this file here: it is ${Math.round(size / 1024)} KiB, and rules files are read up to ${RULES_LIMIT_BYTES / 1024} KiB.]`;
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

function exists(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false }) !== undefined;
}
