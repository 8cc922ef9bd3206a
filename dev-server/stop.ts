import { rmSync } from 'node:fs';
import { findTemporal } from './cli-find.js';
import { serverPid, type DevServerContext } from './context.js';
import { DevServerError } from './errors.js';
import { stopPid } from './lifecycle.js';
import { quiet } from './output.js';
import { TemporalClient } from './temporal-client.js';

/** `stop`: stops the server this script started for the port; never one it did not start. */
export async function stop(context: DevServerContext): Promise<number> {
  const { output, address, pidFile, options } = context;
  const pid = serverPid(context);
  if (!pid) {
    rmSync(pidFile, { force: true });
    if (await foreignServerAnswers(context)) {
      throw new DevServerError(
        `a Temporal server answers on ${address} but it was not started by this script for data dir ${options.dataDir} (no live pid in ${pidFile}); not stopping it`,
      );
    }
    output.out(`Temporal dev server is not running on ${address}.`);
    return 0;
  }
  output.log(`stopping the Temporal dev server on ${address} (pid ${pid})`);
  await stopPid(context, pid);
  rmSync(pidFile, { force: true });
  output.out(`Temporal dev server on ${address} stopped.`);
  return 0;
}

async function foreignServerAnswers(context: DevServerContext): Promise<boolean> {
  const cli = await findTemporal(context.env, context.places, quiet(context.output)).catch(() => undefined);
  return cli !== undefined && (await TemporalClient.open(cli, context.address, context.env)).healthy();
}
