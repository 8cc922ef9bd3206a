/** `12,345` tokens as a person reads them; `1.2M` past a million. */
export function formatTokens(count: number): string {
  if (count >= 1_000_000) return `${(count / 1_000_000).toFixed(1)}M`;
  // Not toLocaleString: its first call loads ICU's number formats, 20 ms (over 200 on a busy
  // machine) of the first screen, whose footer always shows a count.
  return String(Math.round(count)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `$0.0123`, `$1.20`: a cost in dollars. */
export function formatCost(usd: number): string {
  return usd > 0 && usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** `850ms`, `4.2s`, `3m 5s`: how long a turn took. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}
