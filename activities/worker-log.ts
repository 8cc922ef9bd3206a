import { log } from '@temporalio/activity';

/** A warning in the worker's log (the activity's logger), or on the console outside an activity. */
export function warnInWorkerLog(message: string): void {
  try {
    log.warn(message);
  } catch {
    console.warn(message);
  }
}
