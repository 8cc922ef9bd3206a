import { BatchRecord, BatchTaskInput, BatchTaskOutcome } from '../../core/batch.js';
import type { Queryable } from './postgres-queries.js';

/** Batch statements of the PostgreSQL store. Values are validated by the caller. */

/** Must run inside a transaction holding the shared revision lock. */
export async function upsertBatch(db: Queryable, batch: BatchRecord): Promise<void> {
  const sql = `INSERT INTO batch (id, time_created, rev, data) VALUES ($1, $2, nextval('revision'), $3::jsonb)
               ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, data = excluded.data`;
  await db.query(sql, [
    batch.id,
    batch.time.created,
    JSON.stringify(batch),
  ]);
}

/** Inserts every task of a new batch, pending, a thousand rows per statement. */
export async function insertBatchTasks(db: Queryable, batchId: string, tasks: BatchTaskInput[]): Promise<void> {
  const chunk = 1000;
  for (let start = 0; start < tasks.length; start += chunk) {
    const slice = tasks.slice(start, start + chunk);
    const outcomes = slice.map((task, offset): BatchTaskOutcome => ({ index: start + offset, status: 'pending', attempts: 0, sessionId: task.session_id }));
    await db.query(
      `INSERT INTO batch_task (batch_id, idx, task, session_id, outcome)
       SELECT $1, t.idx, t.task::jsonb, t.session_id, t.outcome::jsonb
       FROM unnest($2::int[], $3::text[], $4::text[], $5::text[]) AS t(idx, task, session_id, outcome)`,
      [
        batchId,
        outcomes.map((outcome) => outcome.index),
        slice.map((task) => JSON.stringify(task)),
        slice.map((task) => task.session_id ?? null),
        outcomes.map((outcome) => JSON.stringify(outcome)),
      ],
    );
  }
}

/** Must run inside a transaction holding the shared revision lock: the batch takes a new revision. */
export async function saveBatchOutcomes(db: Queryable, batchId: string, outcomes: BatchTaskOutcome[]): Promise<void> {
  await db.query("UPDATE batch SET rev = nextval('revision') WHERE id = $1", [batchId]);
  for (const outcome of outcomes) {
    await db.query('UPDATE batch_task SET outcome = $1::jsonb, session_id = $2 WHERE batch_id = $3 AND idx = $4', [
      JSON.stringify(outcome),
      outcome.sessionId ?? null,
      batchId,
      outcome.index,
    ]);
  }
}

export async function batchCounts(db: Queryable, batchId: string): Promise<Record<BatchTaskOutcome['status'], number>> {
  const counts = { pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
  const { rows } = await db.query<{ status: keyof typeof counts; count: string }>(
    `SELECT outcome->>'status' AS status, COUNT(*) AS count FROM batch_task WHERE batch_id = $1 GROUP BY 1`,
    [batchId],
  );
  for (const row of rows) counts[row.status] = Number(row.count);
  return counts;
}

export async function batchTasks(
  db: Queryable,
  batchId: string,
  from: number,
  limit: number | null,
): Promise<{ task: BatchTaskInput; outcome: BatchTaskOutcome }[]> {
  const { rows } = await db.query<{ task: unknown; outcome: unknown }>(
    'SELECT task, outcome FROM batch_task WHERE batch_id = $1 AND idx >= $2 ORDER BY idx LIMIT $3',
    [batchId, from, limit],
  );
  return rows.map((row) => ({ task: BatchTaskInput.parse(row.task), outcome: BatchTaskOutcome.parse(row.outcome) }));
}
