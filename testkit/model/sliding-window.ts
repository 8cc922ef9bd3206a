/**
 * A provider's rate limit as a test server keeps it: at most `limit` requests admitted in any
 * sliding window of `windowMs`; beyond that, a 429 with `retry-after` (when given). Records every
 * arrival so tests can check no window held more than the limit.
 */
export function slidingWindow(options: { limit: number; windowMs: number; retryAfterSeconds?: number }) {
  const admitted: number[] = [];
  const rejected: number[] = [];
  return {
    admitted,
    rejected,
    /** Undefined: admitted; else the 429's headers. */
    arrive(now = Date.now()): Record<string, string> | undefined {
      const inWindow = admitted.filter((at) => at > now - options.windowMs).length;
      if (inWindow < options.limit) {
        admitted.push(now);
        return undefined;
      }
      rejected.push(now);
      return options.retryAfterSeconds === undefined ? {} : { 'retry-after': String(options.retryAfterSeconds) };
    },
    /** The most admitted requests any window of `windowMs` held. */
    busiestWindow(): number {
      let most = 0;
      for (let i = 0, j = 0; j < admitted.length; j++) {
        while (admitted[j] - admitted[i] >= options.windowMs) i++;
        most = Math.max(most, j - i + 1);
      }
      return most;
    },
  };
}
