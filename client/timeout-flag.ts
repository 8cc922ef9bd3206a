import { parseDuration } from '../core/duration.js';
import { CliError } from './cli-error.js';

/** `--timeout 90s`: the run's limit in milliseconds, checked before anything starts. */
export function timeoutFlag(value: string | undefined, flag = '--timeout'): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === undefined) {
    throw new CliError(
      `Invalid ${flag} "${value}": give a positive duration such as 90s, 30m, 2h or 1h30m, or milliseconds (5000).`,
    );
  }
  return ms;
}
