#!/usr/bin/env bash
# temporal-dev.sh - install (if missing) and run the Temporal dev server for Loom.
#
# Run `./temporal-dev.sh --help` for usage. The work is done in TypeScript
# (dev-server/), by the Node.js on PATH: from the build (dist/) in an
# installed package, from the sources through tsx in a checkout.
set -eu

if ! command -v node >/dev/null 2>&1; then
  echo "temporal-dev.sh: error: Node.js is needed but 'node' is not on PATH; install Node.js 20.3 or later (https://nodejs.org)" >&2
  exit 1
fi
exec node "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)/bin/temporal-dev.js" "$@"
