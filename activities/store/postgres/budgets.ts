import type { BudgetRows } from '../budgets.js';
import { budgetOfRow } from '../budgets.js';
import type { UsageSums } from '../usage.js';
import type { PostgresTransactions } from './transaction.js';

const sum = (path: string) => `COALESCE(SUM((m.data #>> '{${path}}')::float8), 0)`;
const ASSISTANT_SUMS = `SELECT ${sum('tokens,input')} AS input, ${sum('tokens,output')} AS output,
       ${sum('tokens,reasoning')} AS reasoning, ${sum('tokens,cache,read')} AS "cacheRead",
       ${sum('tokens,cache,write')} AS "cacheWrite", ${sum('cost')} AS cost
FROM message m JOIN tree ON m.session_id = tree.id
WHERE m.data->>'role' = 'assistant'`;

const TREE_BELOW = `UNION SELECT s.id FROM session s JOIN tree t ON s.parent_id = t.id`;

export function postgresBudgetRows({ pool }: PostgresTransactions): BudgetRows {
  return {
    async get(ownerId) {
      const { rows } = await pool.query<{ tokens: number | null; cost: number | null }>(
        'SELECT tokens, cost FROM budget WHERE owner_id = $1',
        [ownerId],
      );
      return budgetOfRow(rows[0]);
    },
    async set(ownerId, budget) {
      await pool.query(
        `INSERT INTO budget (owner_id, tokens, cost) VALUES ($1, $2, $3)
         ON CONFLICT (owner_id) DO UPDATE SET tokens = excluded.tokens, cost = excluded.cost`,
        [ownerId, budget.tokens ?? null, budget.cost ?? null],
      );
    },
    async remove(ownerId) {
      await pool.query('DELETE FROM budget WHERE owner_id = $1', [ownerId]);
    },
    async subtreeUsage(sessionId) {
      const { rows } = await pool.query<UsageSums>(
        `WITH RECURSIVE tree(id) AS (SELECT id FROM session WHERE id = $1 ${TREE_BELOW}) ${ASSISTANT_SUMS}`,
        [sessionId],
      );
      return rows[0];
    },
    async batchUsage(batchId) {
      const { rows } = await pool.query<UsageSums>(
        `WITH RECURSIVE tree(id) AS (
           SELECT session_id FROM batch_task WHERE batch_id = $1 AND session_id IS NOT NULL ${TREE_BELOW}
         ) ${ASSISTANT_SUMS}`,
        [batchId],
      );
      return rows[0];
    },
    async batchBudgetsOf(sessionId) {
      const { rows } = await pool.query<{ batchID: string; tokens: number | null; cost: number | null }>(
        `SELECT DISTINCT b.owner_id AS "batchID", b.tokens, b.cost FROM batch_task t JOIN budget b ON b.owner_id = t.batch_id
         WHERE t.session_id = $1 ORDER BY b.owner_id`,
        [sessionId],
      );
      return rows.map((row) => ({ batchID: row.batchID, budget: budgetOfRow(row)! }));
    },
  };
}
