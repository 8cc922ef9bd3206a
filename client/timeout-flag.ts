import { formatDuration, parseDuration } from '../core/text/duration.js';
import { InputError } from './input-error.js';

/** The shortest limit a run may have: less cancels it before its model could answer. */
const SHORTEST_MS = 1000;

/** `--timeout 90s` (a bare number is seconds): the run's limit in milliseconds, checked before anything starts. */
export function timeoutFlag(value: string | undefined, flag = '--timeout'): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === undefined) {
    throw new InputError(
      `Invalid ${flag} "${value}": give a duration such as 90s, 30m, 2h or 1h30m (a bare number is seconds).`,
    );
  }
  if (ms < SHORTEST_MS)
    throw new InputError(`Invalid ${flag} "${value}" (${formatDuration(ms)}): a run's limit is a second or more.`);
  return ms;
}
