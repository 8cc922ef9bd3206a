import { join } from 'node:path';
import { HOST, SCRIPT_NAME } from './config.js';
import type { InstallPlaces } from './install-places.js';
import type { InstallContext } from './install-step.js';
import type { Options } from './options.js';
import type { Output } from './output.js';
import { isTemporalServerPid, processArgs, readPid } from './processes.js';

/** One command's settings and the server files they name. */
export interface DevServerContext {
  options: Options;
  env: NodeJS.ProcessEnv;
  output: Output;
  /** Where the CLI is looked for and a missing one installed. */
  places: InstallPlaces;
  address: string;
  serverDir: string;
  dbFile: string;
  logFile: string;
  pidFile: string;
}

export function devServerContext(
  options: Options,
  env: NodeJS.ProcessEnv,
  output: Output,
  places: InstallPlaces,
): DevServerContext {
  const serverDir = join(options.dataDir, 'temporal');
  return {
    options,
    env,
    output,
    places,
    address: `${HOST}:${options.port}`,
    serverDir,
    dbFile: join(serverDir, 'dev.db'),
    logFile: join(serverDir, 'server.log'),
    pidFile: join(serverDir, `server-${options.port}.pid`),
  };
}

export function installContext(context: DevServerContext): InstallContext {
  return {
    installRoot: context.places.root,
    places: context.places,
    env: context.env,
    settings: context.options.install,
    output: context.output,
  };
}

/** The pid from this port's pid file, if it is still our Temporal server. */
export function serverPid(context: DevServerContext): number | undefined {
  const pid = readPid(context.pidFile);
  return isTemporalServerPid(pid, context.options.port) ? pid : undefined;
}

/** The Web UI's address; its port is taken from the running server's command line if known. */
export function uiUrl(context: DevServerContext, pid: number | undefined): string {
  let port = String(context.options.uiPort);
  if (pid) {
    const args = processArgs(pid);
    if (args.includes('--headless')) return '(disabled)';
    const flag = /--ui-port (\S*)/.exec(args);
    if (flag) port = flag[1];
  }
  return `http://${HOST}:${port}`;
}

export function printRunning(context: DevServerContext, pid: number | undefined): void {
  const { out } = context.output;
  out(`Temporal dev server: ${context.address}${pid ? ` (pid ${pid})` : ''}`);
  out(`Web UI:              ${uiUrl(context, pid)}`);
  if (pid) {
    out(`Database:            ${context.dbFile}`);
    out(`Log file:            ${context.logFile}`);
  } else {
    out(`Database:            unknown (not started by ${SCRIPT_NAME} with data dir ${context.options.dataDir})`);
  }
}
