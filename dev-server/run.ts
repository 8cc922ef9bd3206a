import { ensureTemporal } from './cli-install.js';
import { devServerContext, installContext, type DevServerContext } from './context.js';
import { DevServerError, UsageError } from './errors.js';
import { installPlaces, type InstallPlaces } from './install-places.js';
import { parseOptions, type Command } from './options.js';
import type { Output } from './output.js';
import { DYNAMIC_CONFIG_FLAGS } from './server-args.js';
import { start } from './start.js';
import { status } from './status.js';
import { stop } from './stop.js';
import { usage } from './usage.js';

const COMMANDS: Record<Command, (context: DevServerContext) => Promise<number>> = {
  start,
  stop,
  status,
  install: async (context) => {
    context.output.out(await ensureTemporal(installContext(context)));
    return 0;
  },
  'dynamic-config': async ({ output }) => {
    DYNAMIC_CONFIG_FLAGS.forEach((line) => output.out(line));
    return 0;
  },
};

/**
 * Runs `temporal-dev.sh <argv>`: writes its report to `output` and gives the exit code (0 ok,
 * 1 error, 2 usage error, 3 not running), as the script's process would.
 */
export async function runDevServer(
  argv: string[],
  env: NodeJS.ProcessEnv,
  output: Output,
  places: InstallPlaces = installPlaces(env),
): Promise<number> {
  try {
    const options = parseOptions(argv, env);
    if (options === 'help') {
      output.out(usage(places).trimEnd());
      return 0;
    }
    return await COMMANDS[options.command](devServerContext(options, env, output, places));
  } catch (error) {
    if (error instanceof UsageError) {
      output.log(error.message);
      output.err(usage(places));
      return 2;
    }
    output.log(
      `error: ${error instanceof DevServerError ? error.message : String((error as Error)?.message ?? error)}`,
    );
    return 1;
  }
}
