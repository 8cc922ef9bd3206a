import { spawn } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { LOG_ROTATE_BYTES, START_TIMEOUT_MS } from './config.js';
import { printRunning, type DevServerContext } from './context.js';
import { DevServerError } from './errors.js';
import { lastLines } from './exec.js';
import { stopPid, waitHealthy } from './lifecycle.js';
import { quiet } from './output.js';
import type { TemporalClient } from './temporal-client.js';

/** Starts the server detached (own session, output to the log file) and waits until it is healthy. */
export async function startInBackground(
  context: DevServerContext,
  client: TemporalClient,
  cli: string,
  args: string[],
): Promise<void> {
  const { output, logFile, pidFile } = context;
  // Keep the log from growing without bound; this run's output starts after the marker line.
  if (existsSync(logFile) && statSync(logFile).size > LOG_ROTATE_BYTES) renameSync(logFile, `${logFile}.1`);
  appendFileSync(logFile, `--- ${timestamp(new Date())} starting ${cli} ${args.join(' ')}\n`);
  const runStart = statSync(logFile).size;

  // Its own session: no SIGHUP when the terminal closes, and the server outlives this process.
  const log = openSync(logFile, 'a');
  const child = spawn(cli, args, { env: context.env, detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  let exited = false;
  child.once('exit', () => (exited = true));
  child.once('error', () => (exited = true));
  child.unref();
  const pid = child.pid!;
  writeFileSync(pidFile, `${pid}\n`);

  if (!(await waitHealthy(context, client, () => !exited))) {
    if (!exited) {
      output.log(`the server did not become healthy within ${START_TIMEOUT_MS / 1000}s; stopping it`);
      await stopPid({ ...context, output: quiet(output) }, pid).catch(() => undefined);
    } else {
      output.log('the server exited during startup');
    }
    rmSync(pidFile, { force: true });
    output.log(`last lines of ${logFile}:`);
    output.err(
      lastLines(readFileSync(logFile).subarray(runStart).toString('utf8'), 30)
        .map((line) => `${line}\n`)
        .join(''),
    );
    throw new DevServerError(`could not start the Temporal dev server on ${context.address}`);
  }
  await client.ensureSearchAttributes(output, context.dbFile);
  output.out('Temporal dev server started.');
  printRunning(context, pid);
}

/** `2024-05-01 13:02:03`, local time. */
function timestamp(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}
