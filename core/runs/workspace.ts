/**
 * Where a session's files live: a folder on one machine, named by its host id. Tools that touch
 * the files run on that host's own task queue; everything else runs on the shared queue.
 */

/** Letters, digits, `.`, `_` and `-`: safe in a task queue name and in a file name. */
const HOST_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Checks a host id (`LOOM_HOST_ID`, or the machine's name); `source` names where it came from. */
export function checkHostId(host: string, source: string): string {
  if (!HOST_ID.test(host)) {
    throw new Error(
      `${source} "${host}" is not a valid host id: use letters, digits, ".", "_" and "-" (up to 100, starting with a letter or digit).`,
    );
  }
  return host;
}

/** The task queue of one host's workspace tools, next to the shared queue it belongs to. */
export function hostTaskQueue(sharedQueue: string, host: string): string {
  return `${sharedQueue}@${host}`;
}

/** How long a workspace tool waits for its host's worker by default before the model is told. */
export const DEFAULT_HOST_WAIT_MS = 10 * 60_000;

/**
 * What a workspace activity returns instead of running on a worker of another host. A reply, not
 * an error: the workflow expects it whenever its worker is not the host, and a failure would be
 * logged and counted as one.
 */
export interface NotThisHost {
  notThisHost: true;
  /** The host this worker serves ('' for none). */
  servedHost: string;
}

export function isNotThisHost(value: unknown): value is NotThisHost {
  return typeof value === 'object' && value !== null && (value as Partial<NotThisHost>).notThisHost === true;
}
