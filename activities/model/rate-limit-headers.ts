/**
 * When a provider's answer says to send nothing more for a while, as epoch milliseconds: from a
 * 429's `retry-after-ms` or `retry-after` (seconds or an HTTP date), or from rate-limit headers
 * saying none are left: OpenAI's `x-ratelimit-remaining-requests: 0` with
 * `x-ratelimit-reset-requests: 6m0s` (and the same for tokens), Anthropic's
 * `anthropic-ratelimit-requests-remaining: 0` with an RFC 3339 `…-reset`.
 */
export function retryAfter(headers: Headers, now: number): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return now + ms;
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  const at = Number.isFinite(seconds) ? now + seconds * 1000 : Date.parse(value);
  return Number.isFinite(at) ? at : undefined;
}

/** The end of the latest exhausted window the headers name, or undefined while some are left. */
export function exhaustedUntil(headers: Headers, now: number): number | undefined {
  let until: number | undefined;
  const consider = (at: number | undefined) => {
    if (at !== undefined && Number.isFinite(at) && (until === undefined || at > until)) until = at;
  };
  for (const what of ['requests', 'tokens']) {
    if (headers.get(`x-ratelimit-remaining-${what}`)?.trim() === '0') {
      const reset = duration(headers.get(`x-ratelimit-reset-${what}`));
      consider(reset === undefined ? undefined : now + reset);
    }
  }
  for (const what of ['requests', 'tokens', 'input-tokens', 'output-tokens']) {
    if (headers.get(`anthropic-ratelimit-${what}-remaining`)?.trim() === '0') {
      const reset = headers.get(`anthropic-ratelimit-${what}-reset`);
      consider(reset ? Date.parse(reset) : undefined);
    }
  }
  return until;
}

/** OpenAI's reset durations: `1s`, `6m0s`, `20ms`, `1h2m3.5s`. */
export function duration(text: string | null): number | undefined {
  const value = text?.trim();
  if (!value || !/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(value)) return undefined;
  const unit = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;
  let ms = 0;
  for (const [, amount, name] of value.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g))
    ms += Number(amount) * unit[name as keyof typeof unit];
  return ms;
}
