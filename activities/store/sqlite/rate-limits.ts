import type { RateGateState, RateLimitRows } from '../rate-limits.js';
import type { SqliteConnection } from './connection.js';

const STATE = 'next_at AS nextAt, blocked_until AS blockedUntil, tokens_until AS tokensUntil, strikes';

export function sqliteRateLimitRows({ db }: SqliteConnection): RateLimitRows {
  const statements = {
    reserve: db
      .prepare(
        `INSERT INTO rate_limit (key, next_at) VALUES (@key, @now + @interval)
         ON CONFLICT(key) DO UPDATE SET next_at = max(next_at, @now, blocked_until, tokens_until) + @interval
         WHERE max(next_at, @now, blocked_until, tokens_until) <= @now + @horizon
         RETURNING next_at`,
      )
      .pluck(),
    get: db.prepare(`SELECT ${STATE} FROM rate_limit WHERE key = ?`),
    block: db
      .prepare(
        `INSERT INTO rate_limit (key, blocked_until) VALUES (@key, @until)
         ON CONFLICT(key) DO UPDATE SET blocked_until = max(blocked_until, @until)
         RETURNING blocked_until`,
      )
      .pluck(),
    // A 429 that arrives while a block holds came from a request sent before it: no new strike.
    backoff: db
      .prepare(
        `INSERT INTO rate_limit (key, blocked_until, strikes) VALUES (@key, @now + @base, 1)
         ON CONFLICT(key) DO UPDATE SET
           blocked_until = CASE WHEN blocked_until > @now THEN blocked_until
                           ELSE @now + min(@max, @base << min(strikes, 6)) END,
           strikes = CASE WHEN blocked_until > @now THEN strikes ELSE strikes + 1 END
         RETURNING blocked_until`,
      )
      .pluck(),
    clearStrikes: db.prepare('UPDATE rate_limit SET strikes = 0 WHERE key = ? AND strikes > 0'),
    spendTokens: db.prepare(
      `INSERT INTO rate_limit (key, tokens_until) VALUES (@key, @now + @ms)
       ON CONFLICT(key) DO UPDATE SET tokens_until = max(tokens_until, @now) + @ms`,
    ),
  };
  return {
    reserve: async (key, now, interval, horizon) =>
      statements.reserve.get({ key, now, interval, horizon }) as number | undefined,
    get: async (key) => statements.get.get(key) as RateGateState | undefined,
    block: async (key, until) => statements.block.get({ key, until }) as number,
    backoff: async (key, now, base, max) => statements.backoff.get({ key, now, base, max }) as number,
    async clearStrikes(key) {
      statements.clearStrikes.run(key);
    },
    async spendTokens(key, now, ms) {
      statements.spendTokens.run({ key, now, ms });
    },
  };
}
