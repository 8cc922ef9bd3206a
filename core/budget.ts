import { z } from 'zod';

/**
 * What a session's tree may spend: tokens (input, output, cache reads and writes, as `loom tree`
 * counts them) and dollars. Either may be absent; an empty budget limits nothing.
 */
export interface Budget {
  tokens?: number;
  cost?: number;
}

/** The `limits` key of loom.json and of an agent: the budget of each new session it applies to. */
export const LimitsConfig = z.strictObject({
  /** Tokens the session and every subagent under it may use in all. */
  max_tokens: z.number().int().positive().optional(),
  /** Dollars they may spend in all; needs prices for every model they use (`cost` of the model in config). */
  max_cost: z.number().positive().optional(),
});
export type LimitsConfig = z.infer<typeof LimitsConfig>;

export function budgetOfLimits(limits: LimitsConfig | undefined): Budget | undefined {
  if (!limits || (limits.max_tokens === undefined && limits.max_cost === undefined)) return undefined;
  return {
    ...(limits.max_tokens !== undefined ? { tokens: limits.max_tokens } : {}),
    ...(limits.max_cost !== undefined ? { cost: limits.max_cost } : {}),
  };
}

export function isEmptyBudget(budget: Budget | undefined): boolean {
  return !budget || (budget.tokens === undefined && budget.cost === undefined);
}
