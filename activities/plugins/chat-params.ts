import { existsSync } from 'node:fs';
import type { ConfigFilesRecord } from '../config/files.js';
import { loadPlugins } from './load.js';
import { runHook } from './hooks.js';
import type { ChatParams, ChatParamsInput } from './types.js';

/**
 * `chat.params`: the sampling parameters and provider options of a model call as the plugins
 * leave them. Plugins are files of the workspace: a worker without the project directory (a
 * model-only worker on another machine) skips the hook and the call goes out with `params`.
 * `project` is the run's config files: plugins come from them (see `loadPlugins`).
 */
export async function pluginChatParams(
  directory: string,
  env: NodeJS.ProcessEnv,
  project: ConfigFilesRecord,
  input: ChatParamsInput,
  params: ChatParams,
): Promise<ChatParams> {
  if (!existsSync(directory)) return params;
  const plugins = await loadPlugins(directory, env, project);
  if (!plugins.list.some((plugin) => plugin.hooks['chat.params'])) return params;
  const output: ChatParams = { ...params, options: { ...params.options } };
  await runHook(plugins, 'chat.params', input, output);
  return output;
}
