import { join, relative, sep } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { AgentConfig, CommandConfig, type LoomConfig } from '../../core/config/config.js';
import { ConfigError, substituteEnv, validate } from './errors.js';
import { refuseSecretsInModelText } from './secret-text.js';
import { diskFiles, type ConfigFiles } from './files.js';

type Kind = 'agent' | 'mode' | 'command';

/**
 * The markdown folders of a config folder, in the order they apply (later wins): legacy modes
 * first, so an agent of the same name overrides one; files within a folder in name order.
 */
const MARKDOWN_FOLDERS: { folder: string; kind: Kind; recursive: boolean }[] = [
  { folder: 'mode', kind: 'mode', recursive: false },
  { folder: 'modes', kind: 'mode', recursive: false },
  { folder: 'agent', kind: 'agent', recursive: true },
  { folder: 'agents', kind: 'agent', recursive: true },
  { folder: 'command', kind: 'command', recursive: true },
  { folder: 'commands', kind: 'command', recursive: true },
];

/** An environment whose every variable reads `{env:NAME}`: frontmatter parsed as written. */
export const UNSUBSTITUTED = new Proxy(
  {},
  { get: (_, name) => (typeof name === 'string' ? `{env:${name}}` : undefined) },
);

/** `logLevel: 'error'` keeps YAML warnings off the console; errors still throw. */
const YAML_OPTIONS = { logLevel: 'error' } as const;

/** One config layer per markdown agent, mode and command file in a config folder. */
export function markdownConfigs(folder: string, env: NodeJS.ProcessEnv, files: ConfigFiles = diskFiles): LoomConfig[] {
  const layers: LoomConfig[] = [];
  for (const { folder: name, kind, recursive } of MARKDOWN_FOLDERS) {
    const base = join(folder, name);
    for (const file of markdownFiles(files, base, recursive)) {
      const fileName = relative(base, file).slice(0, -'.md'.length).split(sep).join('/');
      layers.push(readMarkdownConfig(file, kind, fileName, env, files));
    }
  }
  return layers;
}

/**
 * An agent or command file: YAML frontmatter with the keys of its JSON form, and a body that is
 * the agent's `prompt` or the command's `template`. A frontmatter `name` renames an agent.
 */
export function readMarkdownConfig(
  file: string,
  kind: Kind,
  fileName: string,
  env: NodeJS.ProcessEnv,
  files: ConfigFiles = diskFiles,
): LoomConfig {
  const text = files.read(file);
  const { data, body } = parseMarkdown(text, file, env);
  if (text.includes('{env:'))
    refuseSecretsInModelText(parseMarkdown(text, file, UNSUBSTITUTED).data, file, { kind, name: fileName });
  const bodyKey = kind === 'command' ? 'template' : 'prompt';
  const fields = isPlainObject(data) && body ? { ...data, [bodyKey]: body } : data;
  if (kind === 'command') return { command: { [fileName]: validate(CommandConfig, fields, file) } };
  const { name, ...agent } = validate(AgentConfig, fields, file);
  return { agent: { [name ?? fileName]: kind === 'mode' ? { ...agent, mode: 'primary' } : agent } };
}

/** Splits frontmatter from body and parses the frontmatter (after `{env:VAR}` substitution). */
export function parseMarkdown(text: string, file: string, env: NodeJS.ProcessEnv): { data: unknown; body: string } {
  const open = /^\uFEFF?---[ \t]*\r?\n/.exec(text);
  if (!open) return { data: {}, body: text.trim() };
  const rest = text.slice(open[0].length);
  const close = /^---[ \t]*\r?$/m.exec(rest);
  if (!close) throw new ConfigError(`${file}: the frontmatter opened on line 1 is never closed by a "---" line`);
  const data = parseFrontmatter(substituteEnv(rest.slice(0, close.index), env), file);
  return { data: data ?? {}, body: rest.slice(close.index + close[0].length).trim() };
}

function parseFrontmatter(yaml: string, file: string): unknown {
  try {
    return parseYaml(yaml, YAML_OPTIONS);
  } catch (error) {
    if (!(error instanceof YAMLParseError)) throw error;
    try {
      return parseYaml(blockScalarsForColons(yaml), YAML_OPTIONS);
    } catch {
      // Report the first error: its line numbers are the file's.
    }
    const line = (error.linePos?.[0].line ?? 1) + 1; // + the opening "---" line
    const reason = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw new ConfigError(`${file}: invalid YAML frontmatter at line ${line}: ${reason}`);
  }
}

/**
 * OpenCode's permissive retry, for files written for tools that accept sloppy YAML (Claude Code):
 * a top-level `key: value` whose unquoted value holds a colon (`description: Use this: when …`)
 * becomes a block scalar. Quoted values, block scalars and one-line flow collections stay as written.
 */
function blockScalarsForColons(yaml: string): string {
  return yaml
    .split(/\r?\n/)
    .flatMap((line) => {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$/.exec(line);
      const value = match?.[2].trim() ?? '';
      if (!match || !value.includes(':') || /^["'|>]/.test(value) || /^(\[.*\]|\{.*\})$/.test(value)) return [line];
      return [`${match[1]}: |-`, `  ${value}`];
    })
    .join('\n');
}

/** `.md` files under `folder` (dot entries skipped), sorted by name; symlinks followed. */
function markdownFiles(files: ConfigFiles, folder: string, recursive: boolean): string[] {
  if (!files.isDirectory(folder)) return [];
  const found: string[] = [];
  for (const entry of files.list(folder).sort()) {
    if (entry.startsWith('.')) continue;
    const path = join(folder, entry);
    // A folder is only listed when it is walked, so a record knows exactly the folders walked.
    if (recursive && files.isDirectory(path)) found.push(...markdownFiles(files, path, true));
    else if (entry.endsWith('.md') && files.isFile(path)) found.push(path);
  }
  return found;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
