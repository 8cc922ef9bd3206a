import { createRequire } from 'node:module';

// Temporal's activity package is loaded on the first warning, not with this module: the terminal UI
// and light commands read config (whose problems are warned here) and would otherwise wait ~60 ms for
// it. In a worker it is loaded already; `require` gets the same instance an `import` does.
const requireHere = createRequire(import.meta.url);
const activityLog = () => (requireHere('@temporalio/activity') as typeof import('@temporalio/activity')).log;

let terminal: ((message: string) => void) | undefined;

/**
 * Sends Loom's warnings to a terminal as well as to the worker's log: a worker inside a CLI
 * command logs errors only, and its user should still read that an MCP server or a skill failed.
 */
export function showWorkerWarningsOn(report: (message: string) => void): void {
  terminal = report;
}

/** A warning in the worker's log (the activity's logger), or on the console outside an activity. */
export function warnInWorkerLog(message: string): void {
  terminal?.(message);
  try {
    activityLog().warn(message);
  } catch {
    if (!terminal) console.warn(message);
  }
}

const warnedAt = new Map<string, number>();

/**
 * `warnInWorkerLog`, but the same warning is written once per worker process, or again only after
 * `againAfterMs`: a problem every run meets is said once.
 */
export function warnOnceInWorkerLog(message: string, options: { againAfterMs?: number } = {}): void {
  const last = warnedAt.get(message);
  if (last !== undefined && (options.againAfterMs === undefined || Date.now() - last < options.againAfterMs)) return;
  warnedAt.set(message, Date.now());
  warnInWorkerLog(message);
}
