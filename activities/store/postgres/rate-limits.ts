import type { RateGateState, RateLimitRows } from '../rate-limits.js';
import type { PostgresTransactions } from './transaction.js';

// BIGINT comes back from the driver as text: these are read as float8, exact for milliseconds.
const STATE =
  'next_at::float8 AS "nextAt", blocked_until::float8 AS "blockedUntil", tokens_until::float8 AS "tokensUntil", strikes';

export function postgresRateLimitRows({ pool }: PostgresTransactions): RateLimitRows {
  const one = async (sql: string, values: unknown[]) => {
    const { rows } = await pool.query<{ at: number }>(sql, values);
    return rows[0]?.at;
  };
  return {
    reserve: (key, now, interval, horizon) =>
      one(
        `INSERT INTO rate_limit AS r (key, next_at) VALUES ($1, $2::bigint + $3::bigint)
         ON CONFLICT (key) DO UPDATE SET next_at = GREATEST(r.next_at, $2, r.blocked_until, r.tokens_until) + $3
         WHERE GREATEST(r.next_at, $2, r.blocked_until, r.tokens_until) <= $2::bigint + $4::bigint
         RETURNING next_at::float8 AS at`,
        [key, now, interval, horizon],
      ),
    async get(key) {
      const { rows } = await pool.query<RateGateState>(`SELECT ${STATE} FROM rate_limit WHERE key = $1`, [key]);
      return rows[0];
    },
    block: async (key, until) =>
      (await one(
        `INSERT INTO rate_limit AS r (key, blocked_until) VALUES ($1, $2)
         ON CONFLICT (key) DO UPDATE SET blocked_until = GREATEST(r.blocked_until, $2)
         RETURNING blocked_until::float8 AS at`,
        [key, until],
      ))!,
    // A 429 that arrives while a block holds came from a request sent before it: no new strike.
    backoff: async (key, now, base, max) =>
      (await one(
        `INSERT INTO rate_limit AS r (key, blocked_until, strikes) VALUES ($1, $2::bigint + $3::bigint, 1)
         ON CONFLICT (key) DO UPDATE SET
           blocked_until = CASE WHEN r.blocked_until > $2 THEN r.blocked_until
                           ELSE $2::bigint + LEAST($4::bigint, $3::bigint << LEAST(r.strikes, 6)) END,
           strikes = CASE WHEN r.blocked_until > $2 THEN r.strikes ELSE r.strikes + 1 END
         RETURNING blocked_until::float8 AS at`,
        [key, now, base, max],
      ))!,
    async clearStrikes(key) {
      await pool.query('UPDATE rate_limit SET strikes = 0 WHERE key = $1 AND strikes > 0', [key]);
    },
    async spendTokens(key, now, ms) {
      await pool.query(
        `INSERT INTO rate_limit AS r (key, tokens_until) VALUES ($1, $2::bigint + $3::bigint)
         ON CONFLICT (key) DO UPDATE SET tokens_until = GREATEST(r.tokens_until, $2) + $3`,
        [key, now, ms],
      );
    },
  };
}
