import { Context } from '@temporalio/activity';

const HEARTBEAT_EVERY_MS = 1_000;

/**
 * Runs an activity's work while it heartbeats, so a worker that dies mid-work is noticed within
 * the activity's heartbeat timeout rather than at its start-to-close timeout.
 */
export async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  // Local activities have no heartbeats: the worker that runs them runs the workflow too.
  const timer = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
