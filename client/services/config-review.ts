import { parse as parseJsonc } from 'jsonc-parser';
import type { ConfigFilesRecord } from '../../activities/config/files.js';
import { parseMarkdown, UNSUBSTITUTED } from '../../activities/config/markdown.js';
import { configStanding, trustProjectConfig, type ConfigStanding } from '../../activities/config/trust.js';
import type { ConfigTrustRecords } from '../../activities/store/config-trust.js';
import { unifiedDiff } from '../../activities/tools/files/unified-diff.js';

/** A change to a directory's config files that waits for a person, as they are shown it. */
export interface WaitingConfigChange {
  directory: string;
  /** The id of the files shown (`loom config trust` and the web view trust exactly these). */
  id: string;
  /** The files and folders that differ from the trusted ones. */
  files: string[];
  /** The session whose work it happened in. */
  sessionId?: string;
  time: number;
  /** Settings it changes that decide what an agent may do (`sandbox.enabled: false`), one per line. */
  notable: string[];
  /** Every changed text as a unified diff; plugin code by name only. */
  diff: string;
}

/** Top-level keys whose change decides what an agent may do, reach or run. */
const NOTABLE_KEYS = ['sandbox', 'permission', 'plugin', 'mcp', 'provider', 'shell_env', 'store', 'agent', 'model'];
const NOTABLE_LINES = 30;
const VALUE_CHARS = 100;

/** Where a directory's configuration stands, and the change that waits for a person (if one does). */
export async function reviewConfig(
  store: ConfigTrustRecords,
  directory: string,
  env: NodeJS.ProcessEnv,
): Promise<{ standing: ConfigStanding; waiting?: WaitingConfigChange }> {
  const standing = await configStanding(store, directory, env);
  const pending = standing.trust?.pending;
  if (standing.usedAsIs || !standing.trust || !pending) return { standing };
  const before = standing.trust.trusted;
  const after = standing.current.record;
  return {
    standing,
    waiting: {
      directory,
      id: standing.current.id,
      files: standing.changed,
      ...(pending.sessionId ? { sessionId: pending.sessionId } : {}),
      time: pending.time,
      notable: notableChanges(before, after, standing.changed),
      diff: configDiff(before, after, standing.changed, directory),
    },
  };
}

/** The config files a run a person starts now would use: the disk's, or the trusted ones while a change waits. */
export function filesForPerson(standing: ConfigStanding): ConfigFilesRecord {
  return standing.usedAsIs || !standing.trust ? standing.current.record : standing.trust.trusted;
}

/** A person confirms the directory's config files as they are now (as `shownId` if given: what they reviewed). */
export async function confirmConfig(
  store: ConfigTrustRecords,
  directory: string,
  env: NodeJS.ProcessEnv,
  shownId?: string,
) {
  return trustProjectConfig(store, directory, env, shownId);
}

/** The change as a person reviews it: a diff per file, plugin code named (review the file itself). */
export function configDiff(
  before: ConfigFilesRecord,
  after: ConfigFilesRecord,
  paths: string[],
  directory: string,
): string {
  const name = (path: string) => (path.startsWith(`${directory}/`) ? path.slice(directory.length + 1) : path);
  const parts: string[] = [];
  for (const path of paths) {
    if (path.endsWith('/')) continue;
    const was = before.files[path];
    const now = after.files[path];
    if (was !== undefined || now !== undefined) {
      parts.push(unifiedDiff(name(path), was ?? '', now ?? '').diff.replace(/^=+\n/, ''));
      continue;
    }
    const wasCode = before.plugins?.[path];
    const nowCode = after.plugins?.[path];
    const what =
      wasCode === undefined ? 'new plugin code' : nowCode === undefined ? 'plugin removed' : 'plugin code changed';
    parts.push(`${what}: ${name(path)} (runs in the worker once trusted: read it before you trust it)\n`);
  }
  return parts.join('\n');
}

/**
 * The settings a change sets or removes that decide what an agent may do (`permission`,
 * `sandbox`, `mcp`, …), read from each changed file as written (`{env:…}` left as it is).
 */
export function notableChanges(before: ConfigFilesRecord, after: ConfigFilesRecord, paths: string[]): string[] {
  const lines: string[] = [];
  for (const path of paths) {
    if (path.endsWith('/')) continue;
    if (before.files[path] === undefined && after.files[path] === undefined) {
      lines.push(`${path}: plugin code`);
      continue;
    }
    const was = settingsOf(path, before.files[path]);
    const now = settingsOf(path, after.files[path]);
    for (const key of new Set([...was.keys(), ...now.keys()])) {
      if (was.get(key) === now.get(key)) continue;
      const value = now.has(key) ? now.get(key)! : '(removed)';
      lines.push(`${key}: ${value.length > VALUE_CHARS ? `${value.slice(0, VALUE_CHARS)}…` : value}`);
    }
  }
  return lines.length > NOTABLE_LINES
    ? [...lines.slice(0, NOTABLE_LINES), `… and ${lines.length - NOTABLE_LINES} more`]
    : lines;
}

/** A config file's notable settings as `key.path → JSON value`; a file that does not parse says so. */
function settingsOf(path: string, text: string | undefined): Map<string, string> {
  const settings = new Map<string, string>();
  if (text === undefined) return settings;
  let value: unknown;
  let prefix = '';
  try {
    if (path.endsWith('.md')) {
      value = parseMarkdown(text, path, UNSUBSTITUTED).data;
      const kind = /\/(agents?|modes?)\//.test(path) ? 'agent' : 'command';
      prefix = `${kind}.${path.replace(/^.*\/(agents?|modes?|commands?)\//, '').replace(/\.md$/, '')}.`;
    } else value = parseJsonc(text, [], { allowTrailingComma: true });
  } catch (error) {
    settings.set('(file)', `does not parse: ${(error as Error).message}`);
    return settings;
  }
  if (value === null || typeof value !== 'object') return settings;
  for (const [key, item] of Object.entries(value as Record<string, unknown>))
    if (prefix || NOTABLE_KEYS.includes(key)) flatten(`${prefix}${key}`, item, settings);
  return settings;
}

function flatten(key: string, value: unknown, into: Map<string, string>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [name, item] of Object.entries(value as Record<string, unknown>)) flatten(`${key}.${name}`, item, into);
    return;
  }
  into.set(key, JSON.stringify(value));
}
