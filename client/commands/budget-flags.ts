import { InputError } from '../input-error.js';
import { BudgetInputError, budgetFromInput } from '../services/budgets.js';
import type { Budget } from '../../core/runs/budget.js';

export const BUDGET_FLAG_NAMES = { tokens: '--max-tokens', cost: '--max-cost' };

/** `--max-tokens` and `--max-cost`, checked. */
export function budgetFlags(
  options: { maxTokens?: string; maxCost?: string },
  names = BUDGET_FLAG_NAMES,
): Budget | undefined {
  return cliChecked(() =>
    budgetFromInput({
      tokens: { name: names.tokens, value: options.maxTokens },
      cost: { name: names.cost, value: options.maxCost },
    }),
  );
}

/** A budget problem as the terminal shows errors: the message alone (for checks that return a promise too). */
export function cliChecked<T>(check: () => T): T {
  const asInputError = (error: unknown): never => {
    throw error instanceof BudgetInputError ? new InputError(error.message) : error;
  };
  try {
    const result = check();
    return (result instanceof Promise ? result.catch(asInputError) : result) as T;
  } catch (error) {
    return asInputError(error);
  }
}
