import { exhaustedUntil, retryAfter } from './rate-limit-headers.js';
import type { RateGates } from './rate-gates.js';

/** The longest one request waits for rate limits, re-sends included, before its 429 goes to Temporal's retry. */
export const MAX_WAIT_MS = 10 * 60_000;

/** A 429 that waiting will not fix: the account is out of credit (see errors.ts). */
const QUOTA = /insufficient_quota|exceeded your current quota/i;

/**
 * Wraps a provider's `fetch` so its requests keep to the key's shared rate limits (see
 * `RateGates`): each waits for its turn first; a 429, or headers saying none are left, blocks the
 * key for every session on it; a 429 is then waited out and the same request sent again, here,
 * rather than failing the model activity, for up to `maxWaitMs` of waiting in all. It goes outside
 * `watchedFetch`, so time spent waiting is not taken for a silent server. The request's signal (the
 * activity's cancellation) ends a wait at once.
 */
export function rateLimitedFetch(gates: RateGates, base: typeof fetch, maxWaitMs = MAX_WAIT_MS): typeof fetch {
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    const deadline = Date.now() + maxWaitMs;
    // The AI SDK sends its JSON as a string: such a request can go again as it is.
    const resendable = init?.body === undefined || init.body === null || typeof init.body === 'string';
    let struck = false;
    for (;;) {
      if (await gates.pass(signal, deadline)) struck = true;
      const response = await base(input, init);
      const now = Date.now();
      if (response.status !== 429) {
        const until = exhaustedUntil(response.headers, now);
        if (until !== undefined && until > now) await gates.block(until);
        if (response.ok && struck) await gates.clearStrikes();
        return response;
      }
      if (QUOTA.test(await response.clone().text())) return response;
      const told = retryAfter(response.headers, now) ?? exhaustedUntil(response.headers, now);
      // "Now" (0, or a date gone by) says nothing: the shared backoff decides, lest 429s come back to back.
      const until = await gates.block(told !== undefined && told > now ? told : undefined);
      struck = true;
      if (!resendable || until > deadline) return response;
      await response.body?.cancel().catch(() => undefined);
    }
  };
}
