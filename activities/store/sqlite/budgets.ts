import type { BudgetRows } from '../budgets.js';
import { budgetOfRow } from '../budgets.js';
import type { UsageSums } from '../usage.js';
import type { SqliteConnection } from './connection.js';

type BatchBudgetRow = { batchID: string; tokens: number | null; cost: number | null };

const ASSISTANT_SUMS = `SELECT IFNULL(SUM(json_extract(m.data, '$.tokens.input')), 0) AS input,
       IFNULL(SUM(json_extract(m.data, '$.tokens.output')), 0) AS output,
       IFNULL(SUM(json_extract(m.data, '$.tokens.reasoning')), 0) AS reasoning,
       IFNULL(SUM(json_extract(m.data, '$.tokens.cache.read')), 0) AS cacheRead,
       IFNULL(SUM(json_extract(m.data, '$.tokens.cache.write')), 0) AS cacheWrite,
       IFNULL(SUM(json_extract(m.data, '$.cost')), 0) AS cost
FROM message m JOIN tree ON m.session_id = tree.id
WHERE json_extract(m.data, '$.role') = 'assistant'`;

const TREE_BELOW = `UNION SELECT s.id FROM session s JOIN tree t ON s.parent_id = t.id`;

export function sqliteBudgetRows({ db }: SqliteConnection): BudgetRows {
  const statements = {
    get: db.prepare('SELECT tokens, cost FROM budget WHERE owner_id = ?'),
    set: db.prepare(
      `INSERT INTO budget (owner_id, tokens, cost) VALUES (?, ?, ?)
       ON CONFLICT(owner_id) DO UPDATE SET tokens = excluded.tokens, cost = excluded.cost`,
    ),
    remove: db.prepare('DELETE FROM budget WHERE owner_id = ?'),
    batches: db.prepare(
      `SELECT DISTINCT b.owner_id AS batchID, b.tokens, b.cost FROM batch_task t JOIN budget b ON b.owner_id = t.batch_id
       WHERE t.session_id = ? ORDER BY b.owner_id`,
    ),
    subtree: db.prepare(
      `WITH RECURSIVE tree(id) AS (SELECT id FROM session WHERE id = ? ${TREE_BELOW}) ${ASSISTANT_SUMS}`,
    ),
    batch: db.prepare(
      `WITH RECURSIVE tree(id) AS (
         SELECT session_id FROM batch_task WHERE batch_id = ? AND session_id IS NOT NULL ${TREE_BELOW}
       ) ${ASSISTANT_SUMS}`,
    ),
  };
  return {
    get: async (ownerId) => budgetOfRow(statements.get.get(ownerId) as Parameters<typeof budgetOfRow>[0]),
    async set(ownerId, budget) {
      statements.set.run(ownerId, budget.tokens ?? null, budget.cost ?? null);
    },
    async remove(ownerId) {
      statements.remove.run(ownerId);
    },
    subtreeUsage: async (sessionId) => statements.subtree.get(sessionId) as UsageSums,
    batchUsage: async (batchId) => statements.batch.get(batchId) as UsageSums,
    batchBudgetsOf: async (sessionId) =>
      (statements.batches.all(sessionId) as BatchBudgetRow[]).map((row) => ({
        batchID: row.batchID,
        budget: budgetOfRow(row)!,
      })),
  };
}
