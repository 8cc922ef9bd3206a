import { CliError } from '../cli-error.js';
import { BudgetInputError, budgetFromInput } from '../services/budgets.js';
import type { Budget } from '../../core/budget.js';

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

/** A budget problem as the terminal shows errors: the message alone. */
export function cliChecked<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof BudgetInputError) throw new CliError(error.message);
    throw error;
  }
}

export async function cliCheckedAsync<T>(check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof BudgetInputError) throw new CliError(error.message);
    throw error;
  }
}
