import { setTimeout as sleep } from 'node:timers/promises';
import { HOST, START_TIMEOUT_MS, STOP_TIMEOUT_MS } from './config.js';
import type { DevServerContext } from './context.js';
import { DevServerError } from './errors.js';
import { isTemporalServerPid } from './processes.js';
import type { TemporalClient } from './temporal-client.js';

/** Waits until the server answers; false as soon as `running()` says its process is gone. */
export async function waitHealthy(
  context: DevServerContext,
  client: TemporalClient,
  running: () => boolean,
): Promise<boolean> {
  const started = Date.now();
  let reported = false;
  while (Date.now() - started < START_TIMEOUT_MS) {
    if (await client.healthy()) return true;
    if (!running()) return false;
    if (!reported && Date.now() - started > 5_000) {
      context.output.log(`waiting for the Temporal dev server on ${HOST}:${context.options.port} ...`);
      reported = true;
    }
    await sleep(200);
  }
  return client.healthy();
}

/** SIGTERM, then SIGKILL after STOP_TIMEOUT_MS; resolves once the process is gone. */
export async function stopPid(context: DevServerContext, pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const started = Date.now();
  let killed = false;
  while (isTemporalServerPid(pid)) {
    const waited = Date.now() - started;
    if (!killed && waited >= STOP_TIMEOUT_MS) {
      context.output.log(`pid ${pid} did not exit after SIGTERM; sending SIGKILL`);
      killed = true;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    } else if (waited >= STOP_TIMEOUT_MS + 5_000) {
      throw new DevServerError(`pid ${pid} is still running after SIGKILL`);
    }
    await sleep(200);
  }
}
