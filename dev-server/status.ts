import { findTemporal } from './cli-find.js';
import { SCRIPT_NAME } from './config.js';
import { serverPid, uiUrl, type DevServerContext } from './context.js';
import { DevServerError } from './errors.js';
import { TemporalClient } from './temporal-client.js';

/** Exit code of `status` when no server answers. */
export const NOT_RUNNING = 3;

/** `status`: whether a server answers on the port, and its files; exit 0 running, 3 not running. */
export async function status(context: DevServerContext): Promise<number> {
  const { output, options } = context;
  const pid = serverPid(context);
  let cli: string | undefined;
  try {
    cli = await findTemporal(context.env, context.places, output);
  } catch (error) {
    if (!(error instanceof DevServerError)) throw error;
    output.log(`error: ${error.message}`);
  }
  // Without the CLI there is no health check: a live pid is trusted.
  const running = cli
    ? await (await TemporalClient.open(cli, context.address, context.env)).healthy()
    : pid !== undefined;
  output.out(`Temporal dev server: ${running ? 'running' : 'not running'}`);
  output.out(`Address:             ${context.address}`);
  output.out(`PID:                 ${pid ?? '(unknown)'}`);
  output.out(`Web UI:              ${uiUrl(context, pid)}`);
  output.out(`Data dir:            ${options.dataDir}`);
  output.out(`Database:            ${context.dbFile}`);
  output.out(`Log file:            ${context.logFile}`);
  output.out(`Temporal CLI:        ${cli ?? `not installed (run ./${SCRIPT_NAME} install)`}`);
  return running ? 0 : NOT_RUNNING;
}
