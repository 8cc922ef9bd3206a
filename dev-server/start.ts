import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureTemporal } from './cli-install.js';
import { HOST, SCRIPT_NAME } from './config.js';
import { installContext, printRunning, serverPid, type DevServerContext } from './context.js';
import { DevServerError } from './errors.js';
import { startInBackground } from './background.js';
import { spawnInForeground } from './foreground.js';
import { waitHealthy } from './lifecycle.js';
import { withLock } from './lock.js';
import { isListening } from './port.js';
import { isAlive, isTemporalServerPid, processArgs, readPid } from './processes.js';
import { serverArgs } from './server-args.js';
import { TemporalClient } from './temporal-client.js';

/** `start`: reuses a healthy server on the port, else starts one; the exit code. */
export async function start(context: DevServerContext): Promise<number> {
  const cli = await ensureTemporal(installContext(context));
  const client = await TemporalClient.open(cli, context.address, context.env);
  try {
    mkdirSync(context.serverDir, { recursive: true });
  } catch (error) {
    throw new DevServerError(`cannot create ${context.serverDir}: ${(error as Error).message}`);
  }
  // Concurrent starts on the same port and data dir take turns. A foreground server outlives the
  // lock: what is left to do is to watch it.
  const started = await withLock(
    join(context.serverDir, `server-${context.options.port}.lock`),
    context.output,
    async () => {
      const running = await runningServer(context, client);
      if (running) return reuse(context, client, running.pid);
      if (await isListening(`${HOST}:${context.options.uiPort}`)) {
        throw new DevServerError(
          `Web UI port ${context.options.uiPort} on ${HOST} is already in use; choose another port with --ui-port or LOOM_TEMPORAL_UI_PORT`,
        );
      }
      checkDatabaseNotShared(context);
      const args = serverArgs(context);
      if (context.options.foreground) return spawnInForeground(context, client, cli, args);
      await startInBackground(context, client, cli, args);
      return 0;
    },
  );
  return typeof started === 'number' ? started : started();
}

/** A healthy server on the port (with its pid if this script started it), or undefined if none. */
async function runningServer(context: DevServerContext, client: TemporalClient): Promise<{ pid?: number } | undefined> {
  const { options, address } = context;
  const pid = serverPid(context);
  // Our server may still be starting up (started a moment ago).
  if (pid && !(await client.healthy())) await waitHealthy(context, client, () => isAlive(pid));
  if (await client.healthy()) return { pid };
  if (!pid) rmSync(context.pidFile, { force: true });
  if (!(await isListening(address))) return undefined;
  // Give a server that is just starting a moment before calling it foreign.
  for (let tries = 0; tries < 5 && !(await client.healthy()); tries++) await sleep(500);
  if (await client.healthy()) return {};
  throw new DevServerError(
    `port ${options.port} on ${HOST} is in use by something that is not a Temporal server; choose another port with --port or LOOM_TEMPORAL_PORT`,
  );
}

async function reuse(context: DevServerContext, client: TemporalClient, pid: number | undefined): Promise<number> {
  const { options, output, address } = context;
  if (options.foreground) {
    throw new DevServerError(
      `a Temporal server is already running on ${address}${pid ? ` (pid ${pid})` : ''}; run './${SCRIPT_NAME} stop --port ${options.port}' first to run it in the foreground`,
    );
  }
  output.out('Temporal dev server is already running.');
  await client.ensureSearchAttributes(output, context.dbFile);
  printRunning(context, pid);
  return 0;
}

/** Fails if another live server started by this script uses the same database. */
function checkDatabaseNotShared({ serverDir, pidFile, dbFile }: DevServerContext): void {
  for (const name of readdirSync(serverDir)) {
    const other = /^server-(.+)\.pid$/.exec(name);
    if (!other || join(serverDir, name) === pidFile) continue;
    const pid = readPid(join(serverDir, name));
    if (isTemporalServerPid(pid) && processArgs(pid!).includes(dbFile)) {
      throw new DevServerError(
        `${dbFile} is already used by the server on port ${other[1]} (pid ${pid}); stop it or use another --data-dir`,
      );
    }
  }
}
