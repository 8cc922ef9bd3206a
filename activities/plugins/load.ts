import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mergeConfig, type LoomConfig } from '../../core/config.js';
import { configLayers, type ConfigLayer } from '../config/load.js';
import { diskFiles } from '../config/files.js';
import { configDir } from '../paths.js';
import { warnOnceInWorkerLog } from '../worker-log.js';
import { withTimeout } from './timeout.js';
import { HOOK_NAMES, PluginError, type Hooks, type LoadedPlugin, type PluginInput, type Plugins } from './types.js';
import { errorMessage } from '../../core/error-message.js';

/** Folders of plugin modules inside each config folder (OpenCode's old and new spelling). */
const PLUGIN_FOLDERS = ['plugin', 'plugins'];
/** Config folders inside each folder on the way to the project, in config order (`.loom` last). */
const CONFIG_FOLDERS = ['.opencode', '.loom'];
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
}

const cache = new Map<string, Promise<Plugins>>();

/**
 * The plugins of a project, initialised once per worker process for the same modules (a changed
 * or added file loads them again). Modules come from the `plugin` key of every config layer, in
 * layer order, then from `plugin/` and `plugins/` of the global config folder and of each
 * `.opencode/` and `.loom/` on the way from the filesystem root to the project. Throws a
 * `PluginError` naming the module (and export) that cannot be loaded.
 */
export async function loadPlugins(directory: string, env: NodeJS.ProcessEnv): Promise<Plugins> {
  const { modules, config, skipped } = discoverPlugins(directory, env);
  for (const reason of skipped) warnOnceInWorkerLog(`Plugin ${reason}`);
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

/** The modules `loadPlugins` would load, and the configuration (JSON layers) that named them. */
export function discoverPlugins(
  directory: string,
  env: NodeJS.ProcessEnv,
): { modules: PluginModule[]; config: LoomConfig; skipped: string[] } {
  const root = resolve(directory);
  let layers: ConfigLayer[] = [];
  try {
    layers = configLayers(root, env, { markdown: false });
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
    modules.push({ file, label, mtimeMs, package: isPackage });
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
  const folders = [
    configDir(env),
    ...ancestors(root).flatMap((folder) => CONFIG_FOLDERS.map((name) => join(folder, name))),
  ];
  for (const folder of folders) {
    for (const name of PLUGIN_FOLDERS) {
      const pluginDir = join(folder, name);
      if (!diskFiles.isDirectory(pluginDir)) continue;
      for (const entry of diskFiles.list(pluginDir).sort()) {
        const file = join(pluginDir, entry);
        if (EXTENSIONS.has(extname(entry)) && !entry.endsWith('.d.ts') && diskFiles.isFile(file))
          add(file, labelOf(file, root));
      }
    }
  }
  return { modules, config: layers.reduce((merged, layer) => mergeConfig(merged, layer.config), {}), skipped };
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
