import { closestName } from '../text/closest-name.js';
import { LOOM_CONFIG_KEYS } from './config.js';

/**
 * Top-level keys of OpenCode's configuration schema that Loom does not read: accepted and
 * ignored, so a real opencode.json loads unchanged. (OpenCode's schema is strict: it refuses any
 * other key, and so does Loom.)
 */
export const OPENCODE_ONLY_KEYS: readonly string[] = [
  'theme',
  'logLevel',
  'tui',
  'server',
  'watcher',
  'share',
  'autoshare',
  'autoupdate',
  'disabled_providers',
  'enabled_providers',
  'username',
  'formatter',
  'lsp',
  'layout',
  'enterprise',
  'skills',
];

const KNOWN = [...LOOM_CONFIG_KEYS, ...OPENCODE_ONLY_KEYS];

/**
 * A line for each top-level key of a config file that neither Loom nor OpenCode knows, naming
 * the file and the known key it most likely meant: `Unknown key "provder" in /x/loom.json: did
 * you mean "provider"?`. Empty when every key is known.
 */
export function unknownConfigKeys(value: unknown, label: string): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.keys(value)
    .filter((key) => !KNOWN.includes(key))
    .map((key) => {
      const meant = closestName(key, KNOWN);
      return meant
        ? `Unknown key "${key}" in ${label}: did you mean "${meant}"?`
        : `Unknown key "${key}" in ${label}: neither Loom nor OpenCode reads it (docs/configuration.md lists the keys).`;
    });
}
