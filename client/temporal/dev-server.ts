import { CliError } from '../cli-error.js';
import { captureOutput } from '../../dev-server/output.js';
import { runDevServer } from '../../dev-server/run.js';
import { NOT_RUNNING } from '../../dev-server/status.js';

export { isListening } from '../../dev-server/port.js';

/**
 * Runs `temporal-dev.sh <command>` in this process (dev-server/): its report is kept, not
 * printed, so that only the result (stdout) reaches the caller.
 */
export async function devServer(
  command: 'start' | 'stop' | 'status',
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const output = captureOutput();
  const code = await runDevServer([command], env, output);
  if (code === 0 || (command === 'status' && code === NOT_RUNNING)) return output.stdout();
  throw new CliError(
    `temporal-dev.sh ${command} failed:\n${(output.stderr() || output.stdout() || `exit code ${code}`).trim()}`,
  );
}
