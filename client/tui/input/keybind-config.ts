import { ConfigError, configLayers, type ConfigLayer } from '../../../activities/config/load.js';
import { diskFiles, type ConfigFiles } from '../../../activities/config/files.js';
import { keybindProblems, resolveKeybinds, type Keybinds, type KeybindsConfig } from './keybinds.js';

/**
 * The keybinds for the TUI in `directory`: the defaults, then each config file's `keybinds` in
 * the order the configuration is merged (the global folder, then the folders down to the project,
 * then `LOOM_CONFIG_CONTENT`), a later file's key winning. `project`: the project's files to read
 * (the terminal UI passes those the person trusts, as for the agents). Throws a `ConfigError` listing every bad
 * name or key, each with the file it is in.
 */
export function loadKeybinds(
  directory: string,
  env: NodeJS.ProcessEnv = process.env,
  project: ConfigFiles = diskFiles,
): Keybinds {
  return keybindsOf(configLayers(directory, env, { markdown: false, project }));
}

/** The keybinds of config layers already read (see `loadKeybinds`). */
export function keybindsOf(layers: readonly ConfigLayer[]): Keybinds {
  const problems = layers.flatMap((layer) =>
    layer.config.keybinds ? keybindProblems(layer.config.keybinds, layer.source) : [],
  );
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  const merged: Record<string, string | false> = {};
  for (const layer of layers) Object.assign(merged, layer.config.keybinds as KeybindsConfig | undefined);
  return resolveKeybinds(merged);
}
