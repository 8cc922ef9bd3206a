import type { Budget } from '../../core/runs/budget.js';
import { usageOfSums, type Usage, type UsageSums } from './usage.js';

/**
 * Budgets, each kept by what it covers (a session and its subagents', or a batch's tasks), and
 * what each has spent so far: sums over the assistant messages in the store, so a step recorded
 * twice (a retried activity rewrites its message) is counted once and a restart forgets nothing.
 */
export interface BudgetRecords {
  /** The budget of a session's tree below it, or of a batch (`bat_…`), if one was set. */
  budgetOf(ownerId: string): Promise<Budget | undefined>;
  /** Sets (replaces) the budget; an empty one removes it. */
  setBudget(ownerId: string, budget: Budget): Promise<void>;
  /** Tokens and cost of a session's assistant messages and all its subagents', recursively. */
  subtreeUsage(sessionId: string): Promise<Usage>;
  /** The same over every task session of a batch and their subagents. */
  batchUsage(batchId: string): Promise<Usage>;
  /** The budgets of the batches that ran this session as a task. */
  batchBudgetsOf(sessionId: string): Promise<{ batchID: string; budget: Budget }[]>;
}

/** Budget rows as a dialect stores them. */
export interface BudgetRows {
  get(ownerId: string): Promise<Budget | undefined>;
  set(ownerId: string, budget: Budget): Promise<void>;
  remove(ownerId: string): Promise<void>;
  subtreeUsage(sessionId: string): Promise<UsageSums>;
  batchUsage(batchId: string): Promise<UsageSums>;
  batchBudgetsOf(sessionId: string): Promise<{ batchID: string; budget: Budget }[]>;
}

export function budgetRecords(rows: BudgetRows): BudgetRecords {
  return {
    budgetOf: (ownerId) => rows.get(ownerId),
    async setBudget(ownerId, budget) {
      if (budget.tokens === undefined && budget.cost === undefined) await rows.remove(ownerId);
      else await rows.set(ownerId, budget);
    },
    subtreeUsage: async (sessionId) => usageOfSums(await rows.subtreeUsage(sessionId)),
    batchUsage: async (batchId) => usageOfSums(await rows.batchUsage(batchId)),
    batchBudgetsOf: (sessionId) => rows.batchBudgetsOf(sessionId),
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
