import type { ModelCost } from '../config/config.js';
import type { Tokens } from '../records/tokens.js';

/**
 * What a step cost in dollars, from prices per million tokens. `output` already counts the
 * reasoning tokens (providers bill them as output), so they are not added again; cache reads and
 * writes are billed at their own prices, falling back to the input price.
 */
export function costOf(tokens: Tokens, cost: ModelCost | undefined): number {
  if (!cost) return 0;
  const dollars =
    tokens.input * cost.input +
    tokens.output * cost.output +
    tokens.cache.read * (cost.cache_read ?? cost.input) +
    tokens.cache.write * (cost.cache_write ?? cost.input);
  return dollars / 1_000_000;
}
