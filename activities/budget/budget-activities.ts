import { budgetExceededMessage, type BudgetLine } from '../../core/runs/budget.js';
import type { ActivityDeps } from '../deps.js';
import { budgetStanding } from './standing.js';

/** What a run learns before each step: the budgets over it, and why it must stop, if it must. */
export interface BudgetCheck {
  lines: BudgetLine[];
  /** Set when a budget is reached: the reason the run ends with. */
  exceeded?: string;
}

export function createBudgetActivities({ store }: ActivityDeps) {
  /** Reads every budget over the session and what the trees and batches under them have spent. */
  async function checkBudget(input: { sessionId: string }): Promise<BudgetCheck> {
    const standing = await budgetStanding(store, input.sessionId);
    return {
      lines: standing.lines,
      ...(standing.exceeded ? { exceeded: budgetExceededMessage(standing.exceeded) } : {}),
    };
  }
  return { checkBudget };
}
