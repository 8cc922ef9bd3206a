import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import { hostQueueOf, hosts } from '../activity-policies.js';
import { showProgress, type RunState } from './run-state.js';

/** The run whose workspace tools wait, and their host (none: the run's tools run on any worker). */
export interface HostWatch {
  host?: string;
  state: RunState;
}

/** First look after this long; then less and less often while the work goes on, but at least once a minute. */
const FIRST_CHECK_MS = 5_000;
const LONGEST_CHECK_MS = 60_000;

/**
 * Waits for workspace work on the host's queue. When it takes a while, looks whether any worker
 * serves that host, and while none does, the run's details in the Temporal UI (and its progress
 * query) say that it waits for that host.
 */
export async function whileHostWaits<T>(work: Promise<T>, watch: HostWatch): Promise<T> {
  const host = watch.host;
  if (!host) return work;
  let settled = false;
  await CancellationScope.cancellable(async () => {
    const scope = CancellationScope.current();
    const stop = () => {
      settled = true;
      scope.cancel();
    };
    work.then(stop, stop);
    try {
      let delay = FIRST_CHECK_MS;
      await sleep(delay);
      while (!settled) {
        showWaiting(watch.state, (await isServed(host)) ? undefined : host);
        delay = Math.min(delay * 4, LONGEST_CHECK_MS);
        await sleep(delay);
      }
    } catch (error) {
      if (!isCancellation(error)) throw error;
    }
  });
  showWaiting(watch.state, undefined);
  return work;
}

async function isServed(host: string): Promise<boolean> {
  try {
    return await hosts.hostServed({ queue: hostQueueOf(host) });
  } catch (error) {
    if (isCancellation(error)) throw error;
    return true; // Unknown: say nothing rather than something wrong.
  }
}

function showWaiting(state: RunState, host: string | undefined): void {
  if (state.waitingForHost === host) return;
  state.waitingForHost = host;
  showProgress(state);
}
