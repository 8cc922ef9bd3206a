import { InputError } from '../input-error.js';
import { captureOutput, progressInterval } from '../../dev-server/output.js';
import { runDevServer } from '../../dev-server/run.js';
import { NOT_RUNNING } from '../../dev-server/status.js';

export { isListening } from '../../dev-server/port.js';

/**
 * Runs `temporal-dev.sh <command>` in this process (dev-server/): its report is kept, not
 * printed, so that only the result (stdout) reaches the caller; but installing the Temporal CLI
 * (a download of some 45 MB) is told to `onProgress` as it goes.
 */
export async function devServer(
  command: 'start' | 'stop' | 'status',
  env: NodeJS.ProcessEnv = process.env,
  onProgress?: (line: string) => void,
): Promise<string> {
  const output = captureOutput({ onProgress, progressEveryMs: progressInterval(process.stderr) });
  const code = await runDevServer([command], env, output);
  if (code === 0 || (command === 'status' && code === NOT_RUNNING)) return output.stdout();
  throw new InputError(
    `temporal-dev.sh ${command} failed:\n${(output.stderr() || output.stdout() || `exit code ${code}`).trim()}`,
  );
}
