/** Awaits `ms`. */
import { errorMessage } from '../core/text/error-message.js';
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Calls `attempt` until it succeeds, across a server restart: each failure `isFinal` does not
 * claim waits a little and tries again, for up to `timeoutMs`.
 */
export async function throughOutages<T>(
  what: string,
  attempt: () => Promise<T>,
  options: { timeoutMs?: number; isFinal?: (error: unknown) => boolean } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 180_000);
  for (let delay = 250; ; delay = Math.min(delay * 2, 3_000)) {
    try {
      return await attempt();
    } catch (error) {
      if (options.isFinal?.(error) || Date.now() + delay > deadline) {
        throw new Error(`${what}: ${errorMessage(error)}`, { cause: error });
      }
      await sleep(delay);
    }
  }
}
