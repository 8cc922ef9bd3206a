import type { SessionRecords } from '../../activities/store/sessions.js';
import type { MessageRecords } from '../../activities/store/messages.js';
import { addTokens, type Tokens } from '../../core/records/message.js';
import type { Session } from '../../core/records/session.js';
import type { Budget } from '../../core/runs/budget.js';
import type { BudgetRecords } from '../../activities/store/budgets.js';

export interface Usage {
  tokens: Tokens;
  cost: number;
}

/** A session with its subagents' sessions, each with its own usage and its subtree's. */
export interface SessionNode {
  session: Session;
  own: Usage;
  tree: Usage;
  /** The budget of this session's tree, if one was set (its spend is `tree`). */
  budget?: Budget;
  children: SessionNode[];
}

export async function sessionTree(
  store: MessageRecords & SessionRecords & Pick<BudgetRecords, 'budgetOf'>,
  session: Session,
): Promise<SessionNode> {
  const own = await store.usage(session.id);
  const budget = await store.budgetOf(session.id);
  const children = await Promise.all((await store.children(session.id)).map((child) => sessionTree(store, child)));
  const tree = children.reduce(
    (sum, child) => ({ tokens: addTokens(sum.tokens, child.tree.tokens), cost: sum.cost + child.tree.cost }),
    own,
  );
  return { session, own, tree, ...(budget ? { budget } : {}), children };
}

export { totalTokens } from '../../core/records/tokens.js';
