import { hostname } from 'node:os';
import { checkHostId } from '../../core/runs/workspace.js';

/**
 * This machine's host id: `LOOM_HOST_ID`, else the machine's name (made safe for a task queue
 * name). Stable across restarts, so a session's tools find their host again.
 */
export function localHostId(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LOOM_HOST_ID) return checkHostId(env.LOOM_HOST_ID, 'LOOM_HOST_ID');
  const name = hostname()
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100);
  return name || 'localhost';
}

/**
 * The host of a run started from stored data: the one stored with the session or batch, else
 * `chosen` (the caller's option, or the host an activity's worker serves), else this machine's.
 * Sessions and batches of a Loom before hosts have none stored: their runs ran their tools on any
 * worker, which on the one machine they knew is this one.
 */
export function storedHostOr(
  stored: string | undefined,
  chosen?: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return stored ?? chosen ?? localHostId(env);
}
