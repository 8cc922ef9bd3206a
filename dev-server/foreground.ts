import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { rmSync, writeFileSync } from 'node:fs';
import { HOST } from './config.js';
import type { DevServerContext } from './context.js';
import { waitHealthy } from './lifecycle.js';
import { quiet } from './output.js';
import { readPid } from './processes.js';
import type { TemporalClient } from './temporal-client.js';

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Starts the server with this terminal's output and writes its pid file; the function returned
 * watches it (registering missing search attributes once it is healthy) and gives its exit code.
 * It runs in its own process group so that Ctrl-C reaches it once, forwarded from here.
 */
export function spawnInForeground(
  context: DevServerContext,
  client: TemporalClient,
  cli: string,
  args: string[],
): () => Promise<number> {
  const { output, pidFile, options } = context;
  const child = spawn(cli, args, { env: context.env, detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise<number>((resolve) => {
    child.once('error', (error) => {
      output.log(`error: could not run ${cli}: ${error.message}`);
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
  if (child.pid) writeFileSync(pidFile, `${child.pid}\n`);
  output.log(
    `running the Temporal dev server in the foreground on ${context.address} (Web UI http://${HOST}:${options.uiPort}, database ${context.dbFile})`,
  );
  return () => watch(context, client, child, exited);
}

async function watch(
  context: DevServerContext,
  client: TemporalClient,
  child: ChildProcess,
  exited: Promise<number>,
): Promise<number> {
  const { output, pidFile } = context;
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of FORWARDED) process.on(signal, forward);
  let running = true;
  // The database may predate the search attributes: register missing ones once it is healthy.
  const registered = (async () => {
    if (!(await waitHealthy({ ...context, output: quiet(output) }, client, () => running))) return;
    await client.ensureSearchAttributes({ ...output, out: () => undefined }, context.dbFile);
  })().catch((error: Error) => output.log(`error: ${error.message}`));
  const code = await exited;
  running = false;
  await registered;
  for (const signal of FORWARDED) process.off(signal, forward);
  if (readPid(pidFile) === child.pid) rmSync(pidFile, { force: true });
  return code;
}
