import type { Budget } from '../../core/budget.js';
import { usageOfSums, type Usage, type UsageSums } from './usage.js';

/**
 * Budgets, each kept by what it covers (a session and its subagents', or a batch's tasks), and
 * what each has spent so far: sums over the assistant messages in the store, so a step recorded
 * twice (a retried activity rewrites its message) is counted once and a restart forgets nothing.
 */
export interface BudgetRecords {
  /** The budget of a session's tree below it, or of a batch (`bat_…`), if one was set. */
  budgetOf(ownerID: string): Promise<Budget | undefined>;
  /** Sets (replaces) the budget; an empty one removes it. */
  setBudget(ownerID: string, budget: Budget): Promise<void>;
  /** Tokens and cost of a session's assistant messages and all its subagents', recursively. */
  subtreeUsage(sessionID: string): Promise<Usage>;
  /** The same over every task session of a batch and their subagents. */
  batchUsage(batchID: string): Promise<Usage>;
  /** The budgets of the batches that ran this session as a task. */
  batchBudgetsOf(sessionID: string): Promise<{ batchID: string; budget: Budget }[]>;
}

/** Budget rows as a dialect stores them. */
export interface BudgetRows {
  get(ownerID: string): Promise<Budget | undefined>;
  set(ownerID: string, budget: Budget): Promise<void>;
  remove(ownerID: string): Promise<void>;
  subtreeUsage(sessionID: string): Promise<UsageSums>;
  batchUsage(batchID: string): Promise<UsageSums>;
  batchBudgetsOf(sessionID: string): Promise<{ batchID: string; budget: Budget }[]>;
}

export function budgetRecords(rows: BudgetRows): BudgetRecords {
  return {
    budgetOf: (ownerID) => rows.get(ownerID),
    async setBudget(ownerID, budget) {
      if (budget.tokens === undefined && budget.cost === undefined) await rows.remove(ownerID);
      else await rows.set(ownerID, budget);
    },
    subtreeUsage: async (sessionID) => usageOfSums(await rows.subtreeUsage(sessionID)),
    batchUsage: async (batchID) => usageOfSums(await rows.batchUsage(batchID)),
    batchBudgetsOf: (sessionID) => rows.batchBudgetsOf(sessionID),
  };
}

/** The stored row's columns as a budget: absent limits are NULL. */
export function budgetOfRow(row: { tokens: number | null; cost: number | null } | undefined): Budget | undefined {
  if (!row) return undefined;
  return {
    ...(row.tokens !== null ? { tokens: Number(row.tokens) } : {}),
    ...(row.cost !== null ? { cost: Number(row.cost) } : {}),
  };
}
