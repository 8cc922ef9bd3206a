import { DYNAMIC_CONFIG, HOST } from './config.js';
import type { DevServerContext } from './context.js';
import { SEARCH_ATTRIBUTE_FLAGS } from './search-attributes.js';

/** `--dynamic-config-value` flags, for `start-dev` and for other launchers (`dynamic-config`). */
export const DYNAMIC_CONFIG_FLAGS = DYNAMIC_CONFIG.flatMap((entry) => ['--dynamic-config-value', entry]);

/** The arguments of `temporal server start-dev` for this port and data dir. */
export function serverArgs({ options, dbFile }: DevServerContext): string[] {
  return [
    ...['server', 'start-dev', '--db-filename', dbFile, '--ip', HOST, '--port', String(options.port)],
    ...['--ui-port', String(options.uiPort), '--log-level', 'warn'],
    ...SEARCH_ATTRIBUTE_FLAGS.flatMap((entry) => ['--search-attribute', entry]),
    ...DYNAMIC_CONFIG_FLAGS,
  ];
}
