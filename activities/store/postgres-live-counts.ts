import type { Queryable } from './postgres-queries.js';
import type { LiveCounts } from './store.js';

/** What is under way across the deployment (see `SessionStore.liveCounts`). */
export async function liveCounts(db: Queryable): Promise<LiveCounts> {
  const [tasks, waiting, subagents] = await Promise.all([
    db.query<{ status: keyof LiveCounts['batchTasks']; count: string }>(
      `SELECT t.outcome->>'status' AS status, COUNT(*) AS count FROM batch_task t JOIN batch b ON b.id = t.batch_id
       WHERE b.data->>'status' = 'running' GROUP BY 1`,
    ),
    db.query<{ count: string }>(`SELECT COUNT(*) AS count FROM permission_request WHERE status = 'pending'`),
    db.query<{ count: string }>(`SELECT COUNT(*) AS count FROM session WHERE parent_id IS NOT NULL AND data->>'status' = 'busy'`),
  ]);
  const batchTasks = { pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
  for (const row of tasks.rows) batchTasks[row.status] = Number(row.count);
  return { permissionsWaiting: Number(waiting.rows[0]!.count), subagentsRunning: Number(subagents.rows[0]!.count), batchTasks };
}
