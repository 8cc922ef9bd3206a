import { isDeepStrictEqual } from 'node:util';
import { findTool } from '../../core/tools/index.js';
import type { ToolOutput } from '../tools/running/tool-handler.js';
import { withTimeout } from './timeout.js';
import {
  PluginError,
  type HookName,
  type Hooks,
  type LoadedPlugin,
  type Plugins,
  type ToolCallInput,
} from './types.js';
import { errorMessage } from '../../core/text/error-message.js';

/**
 * Calls one plugin's hook within the plugins' timeout. A hook that throws fails with its message
 * prefixed by the plugin's name; one that hangs fails naming the plugin and the hook.
 */
export async function callHook<K extends HookName>(
  plugin: LoadedPlugin,
  name: K,
  timeoutMs: number,
  ...args: Parameters<NonNullable<Hooks[K]>>
): Promise<void> {
  const hook = plugin.hooks[name] as ((...args: unknown[]) => unknown) | undefined;
  if (!hook) return;
  await withTimeout(
    Promise.resolve().then(() => hook.call(plugin.hooks, ...args)),
    timeoutMs,
    () => new PluginError(`Plugin ${plugin.name}: hook "${name}" did not finish within ${timeoutMs / 1000} s`),
    (error) => new PluginError(`Plugin ${plugin.name}: ${errorMessage(error)}`),
  );
}

/** Runs `name` of every plugin in load order, each seeing what the ones before left in `output`. */
export async function runHook<K extends HookName>(
  plugins: Plugins,
  name: K,
  ...args: Parameters<NonNullable<Hooks[K]>>
): Promise<void> {
  for (const plugin of plugins.list) await callHook(plugin, name, plugins.timeoutMs, ...args);
}

/**
 * `tool.execute.before`: the arguments the call runs with. Arguments a plugin changed are checked
 * again against the tool's parameters (and get their defaults); a plugin that throws blocks the
 * call with its message.
 */
export async function beforeToolCall(
  plugins: Plugins,
  input: ToolCallInput,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  let current = args;
  for (const plugin of plugins.list) {
    if (!plugin.hooks['tool.execute.before']) continue;
    const output = { args: structuredClone(current) };
    await callHook(plugin, 'tool.execute.before', plugins.timeoutMs, input, output);
    if (isDeepStrictEqual(output.args, current)) continue;
    const spec = findTool(input.tool);
    const parsed = spec?.parameters.safeParse(output.args);
    if (parsed && !parsed.success) {
      const problems = parsed.error.issues
        .map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`)
        .join('; ');
      throw new PluginError(
        `Plugin ${plugin.name}: changed the arguments of ${input.tool} into invalid ones: ${problems}`,
      );
    }
    current = (parsed?.data ?? output.args) as Record<string, unknown>;
  }
  return current;
}

/** `tool.execute.after`: the result as the plugins leave it (title, output, metadata). */
export async function afterToolCall(
  plugins: Plugins,
  input: ToolCallInput & { args: Record<string, unknown> },
  result: ToolOutput,
): Promise<ToolOutput> {
  if (!plugins.list.some((plugin) => plugin.hooks['tool.execute.after'])) return result;
  const output = { title: result.title, output: result.output, metadata: { ...result.metadata } };
  await runHook(plugins, 'tool.execute.after', input, output);
  return { ...result, title: String(output.title), output: String(output.output), metadata: output.metadata };
}

/** `shell.env`: variables the plugins add to the environment of processes tools start in `cwd`. */
export async function pluginShellEnv(plugins: Plugins, cwd: string): Promise<Record<string, string>> {
  if (!plugins.list.some((plugin) => plugin.hooks['shell.env'])) return {};
  const output = { env: {} as Record<string, string> };
  await runHook(plugins, 'shell.env', { cwd }, output);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(output.env ?? {})) {
    if (value !== undefined && value !== null) env[name] = String(value);
  }
  return env;
}
