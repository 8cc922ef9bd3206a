import { firstExceeded, type BudgetLine, type BudgetStanding } from '../../core/runs/budget.js';
import { totalTokens } from '../../core/records/tokens.js';
import type { BudgetRecords } from '../store/budgets.js';
import type { Usage } from '../store/usage.js';
import type { SessionRecords } from '../store/sessions.js';

type Store = BudgetRecords & Pick<SessionRecords, 'getSession'>;

/**
 * Every budget a session's model calls count against, nearest first: its own tree's, each
 * ancestor's, and those of the batches that ran its root as a task; with what each has spent.
 */
export async function budgetStanding(store: Store, sessionId: string): Promise<BudgetStanding> {
  const lines: BudgetLine[] = [];
  let root = sessionId;
  for (let id: string | undefined = sessionId; id; id = (await store.getSession(id))?.parentID) {
    root = id;
    const budget = await store.budgetOf(id);
    if (budget) lines.push({ owner: id, kind: 'tree', budget, spent: spentOf(await store.subtreeUsage(id)) });
  }
  for (const { batchID, budget } of await store.batchBudgetsOf(root)) {
    lines.push({ owner: batchID, kind: 'batch', budget, spent: spentOf(await store.batchUsage(batchID)) });
  }
  return { lines, exceeded: firstExceeded(lines) };
}

export function spentOf(usage: Usage): BudgetLine['spent'] {
  return { tokens: totalTokens(usage.tokens), cost: usage.cost };
}
