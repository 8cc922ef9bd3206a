import { dirname, join, resolve } from 'node:path';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { LoomConfig, mergeConfig } from '../../core/config/config.js';
import { CONFIG_FILE_NAMES, CONFIG_FOLDER_NAMES } from '../../core/config/config-files.js';
import { unknownConfigKeys } from '../../core/config/config-keys.js';
import { configDir } from '../process/paths.js';
import { ConfigError, substituteEnv, validate } from './errors.js';
import { diskFiles, type ConfigFiles } from './files.js';
import { markdownConfigs } from './markdown.js';
import { refuseSecretsInModelText } from './secret-text.js';

export { ConfigError } from './errors.js';

/**
 * Loads the configuration that applies to a project directory. Layers, later overriding earlier
 * (objects merged key by key):
 * 1. the global config folder (`LOOM_CONFIG_DIR`): its JSON files, then its markdown agents,
 *    modes and commands;
 * 2. each folder from the filesystem root down to the project directory: its JSON files, then
 *    its `.opencode/` (JSON, then markdown), then its `.loom/` (JSON, then markdown);
 * 3. `LOOM_CONFIG_CONTENT`.
 *
 * `project` reads layer 2 (the disk unless given: a workspace config record on a worker without the
 * workspace); layer 1 is always this worker's own disk and layer 3 its own environment.
 */
export function loadConfig(
  directory: string,
  env: NodeJS.ProcessEnv = process.env,
  project: ConfigFiles = diskFiles,
): LoomConfig {
  return configLayers(directory, env, { project }).reduce((merged, layer) => mergeConfig(merged, layer.config), {});
}

/** One layer of configuration and where it came from (a file, a folder of markdown files, or `LOOM_CONFIG_CONTENT`). */
export interface ConfigLayer {
  source: string;
  config: LoomConfig;
}

/**
 * The layers `loadConfig` merges, in its order, each with its source, for settings that must say
 * which file set them. `markdown: false` leaves out markdown agents and commands (for settings
 * that only JSON can hold, so a broken agent file does not stop them being read), and the check of
 * text a model reads, which the run's own loading makes.
 */
export function configLayers(
  directory: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { markdown?: boolean; project?: ConfigFiles } = {},
): ConfigLayer[] {
  const markdown = options.markdown ?? true;
  const project = options.project ?? diskFiles;
  const layers = configFolder(diskFiles, configDir(env), env, markdown);
  for (const folder of ancestors(resolve(directory)).reverse()) {
    layers.push(...jsonFiles(project, folder, env, markdown));
    for (const name of CONFIG_FOLDER_NAMES) layers.push(...configFolder(project, join(folder, name), env, markdown));
  }
  if (env.LOOM_CONFIG_CONTENT)
    layers.push({
      source: 'LOOM_CONFIG_CONTENT',
      config: parseConfig(env.LOOM_CONFIG_CONTENT, 'LOOM_CONFIG_CONTENT', env, { modelText: markdown }),
    });
  return layers;
}

/** Parsed config texts a worker keeps: every step reads the same few files again. */
const PARSED_LIMIT = 64;
const parsed = new Map<string, LoomConfig>();

/**
 * Parses one JSONC config text; `label` (a file path) names it in errors. `modelText: false` skips
 * the check that no secret goes into text a model reads (for settings read before any run, such
 * as the store's URL, which a file that fails it must not keep a person from).
 */
export function parseConfig(
  text: string,
  label: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { modelText?: boolean } = {},
): LoomConfig {
  const substituted = substituteEnv(text, env);
  const key = `${label}\0${substituted}`;
  let config = parsed.get(key);
  if (options.modelText !== false && substituted !== text) refuseSecretsInModelText(text, label);
  if (!config) {
    config = parseSubstituted(substituted, label);
    if (parsed.size >= PARSED_LIMIT) parsed.delete(parsed.keys().next().value!);
    parsed.set(key, config);
  }
  // A copy: the caller may change what it gets, and the next caller must get the file's own values.
  return structuredClone(config);
}

function parseSubstituted(substituted: string, label: string): LoomConfig {
  const errors: ParseError[] = [];
  const value = parseJsonc(substituted, errors, { allowTrailingComma: true });
  if (errors.length > 0) {
    const first = errors[0];
    const line = substituted.slice(0, first.offset).split('\n').length;
    throw new ConfigError(`${label}: invalid JSON at line ${line}: ${printParseErrorCode(first.error)}`);
  }
  const unknown = unknownConfigKeys(value, label);
  if (unknown.length > 0) throw new ConfigError(unknown.join('\n'));
  return validate(LoomConfig, value ?? {}, label);
}

function configFolder(files: ConfigFiles, folder: string, env: NodeJS.ProcessEnv, markdown: boolean): ConfigLayer[] {
  const agents = markdown ? markdownConfigs(folder, env, files).map((config) => ({ source: folder, config })) : [];
  return [...jsonFiles(files, folder, env, markdown), ...agents];
}

function jsonFiles(files: ConfigFiles, folder: string, env: NodeJS.ProcessEnv, modelText: boolean): ConfigLayer[] {
  return CONFIG_FILE_NAMES.map((name) => join(folder, name))
    .filter((file) => files.isFile(file))
    .map((file) => ({ source: file, config: parseConfig(files.read(file), file, env, { modelText }) }));
}

function ancestors(directory: string): string[] {
  const folders = [directory];
  while (dirname(folders[folders.length - 1]) !== folders[folders.length - 1]) {
    folders.push(dirname(folders[folders.length - 1]));
  }
  return folders;
}
