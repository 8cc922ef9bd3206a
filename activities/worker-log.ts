import { log } from '@temporalio/activity';

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
    log.warn(message);
  } catch {
    if (!terminal) console.warn(message);
  }
}
