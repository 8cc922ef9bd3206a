import type { Tokens } from '../../core/records/message.js';

/** Tokens and cost of assistant messages, summed. */
export interface Usage {
  tokens: Tokens;
  cost: number;
}

/** The sums a dialect's usage queries return. */
export type UsageSums = Record<'input' | 'output' | 'reasoning' | 'cacheRead' | 'cacheWrite' | 'cost', number>;

export function usageOfSums(sums: UsageSums): Usage {
  return {
    tokens: {
      input: sums.input,
      output: sums.output,
      reasoning: sums.reasoning,
      cache: { read: sums.cacheRead, write: sums.cacheWrite },
    },
    cost: sums.cost,
  };
}
