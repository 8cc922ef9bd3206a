/**
 * A provider's rate limit as every worker sees it: one row per gate (a provider and API key, or
 * a model of it), so a thousand sessions on one key queue behind one another wherever they run.
 * Times are epoch milliseconds of the caller's clock; machines sharing a store are assumed to
 * keep their clocks in step (NTP), as the limits themselves are counted in seconds.
 */
export interface RateGateState {
  /** The first free send time: the last reservation plus its interval. */
  nextAt: number;
  /** No request may go before this: a 429 or a provider's "none left" said so. */
  blockedUntil: number;
  /** The token clock: answers so far, at the configured tokens per minute, are paid for by then. */
  tokensUntil: number;
  /** 429s in a row without a Retry-After: the shared backoff doubles with each. */
  strikes: number;
}

export interface RateLimits {
  /**
   * Hands this caller its own send time on the gate, atomically across workers: the latest of the
   * next free slot, `now`, the block and the token clock; the slot after it is `intervalMs` later.
   * Undefined when that time is more than `horizonMs` ahead: nothing is reserved, so a caller that
   * dies while it waits wastes no slot; it waits and asks again.
   */
  reserveRateSlot(key: string, now: number, intervalMs: number, horizonMs: number): Promise<number | undefined>;
  rateGate(key: string): Promise<RateGateState | undefined>;
  /**
   * Blocks the gate for everyone: until `until` when the provider said when, else for the shared
   * backoff (1 s, doubling with each strike, at most 60 s). Returns the time the block ends.
   */
  blockRateGate(key: string, now: number, until?: number): Promise<number>;
  /** A request went through: the backoff starts again from 1 s. */
  clearRateStrikes(key: string): Promise<void>;
  /** Moves the token clock on by `ms` (from now, if it is behind). */
  spendRateTokens(key: string, now: number, ms: number): Promise<void>;
}

/** The rows as a dialect writes them; each call is one statement. */
export interface RateLimitRows {
  reserve(key: string, now: number, intervalMs: number, horizonMs: number): Promise<number | undefined>;
  get(key: string): Promise<RateGateState | undefined>;
  block(key: string, until: number): Promise<number>;
  backoff(key: string, now: number, baseMs: number, maxMs: number): Promise<number>;
  clearStrikes(key: string): Promise<void>;
  spendTokens(key: string, now: number, ms: number): Promise<void>;
}

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_MAX_MS = 60_000;

export function rateLimits(rows: RateLimitRows): RateLimits {
  return {
    async reserveRateSlot(key, now, intervalMs, horizonMs) {
      const next = await rows.reserve(key, whole(now), whole(intervalMs), whole(horizonMs));
      return next === undefined ? undefined : next - whole(intervalMs);
    },
    rateGate: (key) => rows.get(key),
    blockRateGate: (key, now, until) =>
      until === undefined
        ? rows.backoff(key, whole(now), BACKOFF_BASE_MS, BACKOFF_MAX_MS)
        : rows.block(key, whole(until)),
    clearRateStrikes: (key) => rows.clearStrikes(key),
    async spendRateTokens(key, now, ms) {
      if (ms > 0) await rows.spendTokens(key, whole(now), whole(ms));
    },
  };
}

/** Integer milliseconds, rounded up: a wait is never cut short. */
function whole(ms: number): number {
  return Math.ceil(ms);
}
