import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mergeConfig, type LoomConfig } from '../../core/config/config.js';
import { configLayers, type ConfigLayer } from '../config/load.js';
import { diskFiles, recordedFiles, type ConfigFiles, type ConfigFilesRecord } from '../config/files.js';
import { CONFIG_FOLDER_NAMES } from '../../core/config/config-files.js';
import { configDir } from '../process/paths.js';
import { warnOnceInWorkerLog } from '../process/worker-log.js';
import { withTimeout } from './timeout.js';
import { HOOK_NAMES, PluginError, type Hooks, type LoadedPlugin, type PluginInput, type Plugins } from './types.js';
import { errorMessage } from '../../core/text/error-message.js';

/** Folders of plugin modules inside each config folder (OpenCode's old and new spelling). */
const PLUGIN_FOLDERS = ['plugin', 'plugins'];
const EXTENSIONS = new Set(['.js', '.mjs', '.ts']);
/** Keys of OpenCode's `Hooks` that are objects, not hooks; Loom does not use them yet. */
const NOT_HOOKS = new Set(['tool', 'auth']);
export const DEFAULT_PLUGIN_TIMEOUT_S = 10;
/** Projects whose plugins a worker keeps loaded. */
const CACHE_LIMIT = 32;

/** A module to load: its file, how errors name it, and its modification time (a change loads it again). */
interface PluginModule {
  file: string;
  label: string;
  mtimeMs: number;
  /** Inside `node_modules`: imported once per process, whatever its time. */
  package: boolean;
  /** In the user's global config folder: theirs, not the project's, so never checked against a record. */
  global: boolean;
}

const cache = new Map<string, Promise<Plugins>>();

/**
 * The plugins of a project, initialised once per worker process for the same modules (a changed
 * or added file loads them again). Modules come from the `plugin` key of every config layer, in
 * layer order, then from `plugin/` and `plugins/` of the global config folder and of each
 * `.opencode/` and `.loom/` on the way from the filesystem root to the project. Throws a
 * `PluginError` naming the module (and export) that cannot be loaded.
 *
 * The project's part is read from `project`, the config files a run uses (those a person trusts),
 * and a module of the project is loaded only while its code is the code that record saw: code an
 * agent wrote or changed since runs in this worker only once a person confirms it.
 */
export async function loadPlugins(
  directory: string,
  env: NodeJS.ProcessEnv,
  project: ConfigFilesRecord,
): Promise<Plugins> {
  const { modules, config, skipped } = discoverPlugins(directory, env, recordedFiles(project));
  for (const reason of skipped) warnOnceInWorkerLog(`Plugin ${reason}`);
  for (const module of modules) if (!module.global) checkSeen(module, project);
  const timeoutMs = (config.plugin_timeout ?? DEFAULT_PLUGIN_TIMEOUT_S) * 1000;
  if (modules.length === 0) return { list: [], timeoutMs };
  const key = JSON.stringify([resolve(directory), timeoutMs, modules]);
  let loading = cache.get(key);
  if (!loading) {
    loading = initialise(directory, modules, timeoutMs);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(key, loading);
    // A failure is not kept: the next call tries again (the fix may need no file change, e.g. `npm install`).
    loading.catch(() => cache.delete(key));
  }
  return loading;
}

/**
 * The modules `loadPlugins` would load, and the configuration (JSON layers) that named them. The
 * project's config files and plugin folders are read through `project` (the disk by default).
 */
export function discoverPlugins(
  directory: string,
  env: NodeJS.ProcessEnv,
  project: ConfigFiles = diskFiles,
): { modules: PluginModule[]; config: LoomConfig; skipped: string[] } {
  const root = resolve(directory);
  const globalDir = configDir(env);
  let layers: ConfigLayer[] = [];
  try {
    layers = configLayers(root, env, { markdown: false, project });
  } catch {
    // A broken config file is reported where the run is prepared; its plugins are not loaded.
  }
  const modules: PluginModule[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  const add = (file: string, label: string, isPackage = false) => {
    if (seen.has(file)) return;
    seen.add(file);
    const mtimeMs = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    if (mtimeMs === undefined) throw new PluginError(`${label}: no such file ${file}`);
    const global = file === globalDir || file.startsWith(`${globalDir}/`);
    modules.push({ file, label, mtimeMs, package: isPackage, global });
  };
  for (const layer of layers) {
    for (const [index, entry] of (layer.config.plugin ?? []).entries()) {
      const label = `${layer.source}: plugin[${index}] "${entry}"`;
      if (entry.startsWith('.') || isAbsolute(entry) || entry.startsWith('file://')) {
        const base = layer.source === 'LOOM_CONFIG_CONTENT' ? root : dirname(layer.source);
        const file = entry.startsWith('file://') ? new URL(entry).pathname : resolve(base, entry);
        add(file, label);
      } else {
        // OpenCode installs the npm plugins a project names; Loom uses those installed and skips
        // the others, so a project brought from OpenCode runs (its own files must load, though).
        const file = resolvePackage(entry, root);
        if (file) add(file, label, true);
        else skipped.push(`${label}: package not installed in ${root} (npm install it there to use it); skipped`);
      }
    }
  }
  const folders: [string, ConfigFiles][] = [
    [globalDir, diskFiles],
    ...ancestors(root).flatMap((folder) =>
      CONFIG_FOLDER_NAMES.map((name): [string, ConfigFiles] => [join(folder, name), project]),
    ),
  ];
  for (const [folder, files] of folders) {
    for (const name of PLUGIN_FOLDERS) {
      const pluginDir = join(folder, name);
      if (!files.isDirectory(pluginDir)) continue;
      for (const entry of files.list(pluginDir).sort()) {
        const file = join(pluginDir, entry);
        if (!EXTENSIONS.has(extname(entry)) || entry.endsWith('.d.ts')) continue;
        // A record lists a plugin file without its text (the digest is its record); one that has
        // gone since is reported missing, not skipped, as a plugin named in config is.
        if (files !== diskFiles || diskFiles.isFile(file)) add(file, labelOf(file, root));
      }
    }
  }
  return { modules, config: layers.reduce((merged, layer) => mergeConfig(merged, layer.config), {}), skipped };
}

/**
 * The SHA-256 of each plugin module of the project that `project` leads to (the global folder's
 * are the user's own): what a record holds, so `loadPlugins` loads only code it saw.
 */
export function pluginDigests(directory: string, env: NodeJS.ProcessEnv, project: ConfigFiles): Record<string, string> {
  const digests: Record<string, string> = {};
  let modules: PluginModule[] = [];
  try {
    modules = discoverPlugins(directory, env, project).modules;
  } catch {
    // A plugin named but missing: the run's start says so when it loads the plugins.
  }
  for (const module of modules) {
    const digest = module.global ? undefined : digestOf(module.file);
    if (digest) digests[module.file] = digest;
  }
  return digests;
}

/** Digests by file, kept while the file's time and size stay the same. */
const digests = new Map<string, { stamp: string; digest: string }>();
const DIGESTS_KEPT = 256;

function digestOf(file: string): string | undefined {
  const info = statSync(file, { throwIfNoEntry: false });
  if (!info?.isFile()) return undefined;
  const stamp = `${info.mtimeMs}:${info.size}:${info.ino}`;
  const known = digests.get(file);
  if (known?.stamp === stamp) return known.digest;
  const digest = createHash('sha256').update(readFileSync(file)).digest('hex');
  if (digests.size >= DIGESTS_KEPT) digests.delete(digests.keys().next().value!);
  digests.set(file, { stamp, digest });
  return digest;
}

/** Refuses a module of the project whose code is not the code the run's config record saw. */
function checkSeen(module: PluginModule, project: ConfigFilesRecord): void {
  const seen = project.plugins?.[module.file];
  if (seen !== undefined && digestOf(module.file) === seen) return;
  throw new PluginError(
    `${module.label}: ${seen === undefined ? 'is new' : 'changed'} since a person last trusted this project's configuration, so it is not loaded. ` +
      'Review it, then run `loom config trust` in the project (or answer the prompt of `loom run`).',
  );
}

async function initialise(directory: string, modules: PluginModule[], timeoutMs: number): Promise<Plugins> {
  const input: PluginInput = {
    directory,
    worktree: directory,
    project: { id: directory },
    $: undefined,
    client: undefined,
  };
  const list: LoadedPlugin[] = [];
  for (const module of modules) {
    let exports: Record<string, unknown>;
    try {
      exports = await importModule(module);
    } catch (error) {
      throw new PluginError(`${module.label}: cannot be imported: ${errorMessage(error)}`);
    }
    // Every exported function is a plugin (as in OpenCode); one exported twice runs once.
    const initialised = new Set<unknown>();
    for (const [exportName, value] of Object.entries(exports)) {
      const name = exportName === 'default' ? module.label : `${module.label} (export ${exportName})`;
      if (typeof value !== 'function')
        throw new PluginError(`${name}: expected a plugin function (input) => Promise<Hooks>, got ${typeof value}`);
      if (initialised.has(value)) continue;
      initialised.add(value);
      const hooks = await withTimeout(
        Promise.resolve().then(() => (value as (input: PluginInput) => unknown)(input)),
        timeoutMs,
        () => new PluginError(`${name}: initialiser did not finish within ${timeoutMs / 1000} s`),
        (error) => new PluginError(`${name}: initialiser threw: ${errorMessage(error)}`),
      );
      list.push({ name: module.label, hooks: checkHooks(hooks, name) });
    }
  }
  if (list.some((plugin) => plugin.hooks.event)) sawEventHooks();
  return { list, timeoutMs };
}

let eventHooksLoaded = false;
const eventHooksWaiters = new Set<() => void>();

function sawEventHooks(): void {
  eventHooksLoaded = true;
  for (const wake of eventHooksWaiters) wake();
  eventHooksWaiters.clear();
}

/**
 * Resolves once this process has loaded a plugin with an `event` hook (or when `signal` aborts):
 * until then a worker has no reason to read the store's feed for plugins.
 */
export function eventHooksSeen(signal: AbortSignal): Promise<void> {
  if (eventHooksLoaded || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      eventHooksWaiters.delete(done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    eventHooksWaiters.add(done);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * A module's exports. TypeScript goes through tsx's `tsImport`, which compiles a `.ts` file
 * wherever it is (the worker's own tsx hooks leave a `.ts` outside an ESM package to Node's
 * CommonJS loader, which cannot read it). A module compiled to CommonJS comes back as
 * `{ default: module.exports }`: its exports are unwrapped. A local file is imported with its
 * modification time in the URL, so a changed file is read again rather than taken from Node's cache.
 */
async function importModule(module: PluginModule): Promise<Record<string, unknown>> {
  const url = pathToFileURL(module.file).href;
  const versioned = module.package ? url : `${url}?loom-mtime=${module.mtimeMs}`;
  const loaded = (
    extname(module.file) === '.ts'
      ? await (await import('tsx/esm/api')).tsImport(versioned, import.meta.url)
      : await import(versioned)
  ) as Record<string, unknown>;
  const inner = loaded.default as Record<string, unknown> | undefined;
  if (inner !== null && typeof inner === 'object' && inner.__esModule === true) {
    return Object.fromEntries(Object.entries(inner).filter(([key]) => key !== '__esModule'));
  }
  return loaded;
}

/** A plugin's hooks, each known one checked to be a function; keys Loom does not know are ignored. */
function checkHooks(value: unknown, name: string): Hooks {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object')
    throw new PluginError(`${name}: expected the initialiser to return an object of hooks, got ${typeof value}`);
  for (const [key, hook] of Object.entries(value)) {
    if (NOT_HOOKS.has(key) || !(HOOK_NAMES as readonly string[]).includes(key)) continue;
    if (typeof hook !== 'function')
      throw new PluginError(`${name}: hook "${key}" is not a function (got ${typeof hook})`);
  }
  return value as Hooks;
}

function resolvePackage(name: string, directory: string): string | undefined {
  try {
    return createRequire(join(directory, 'package.json')).resolve(name);
  } catch {
    return undefined;
  }
}

function labelOf(file: string, directory: string): string {
  const path = relative(directory, file);
  return path.startsWith('..') || isAbsolute(path) ? file : path;
}

function ancestors(directory: string): string[] {
  const folders = [directory];
  while (dirname(folders[0]) !== folders[0]) folders.unshift(dirname(folders[0]));
  return folders;
}
