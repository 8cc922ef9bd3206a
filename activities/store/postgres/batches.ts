import { BatchRecord, BatchTaskInput, BatchTaskOutcome } from '../../../core/batch/batch.js';
import type { BatchRows, StatusCount } from '../batches.js';
import { all, one, type Queryable } from './documents.js';
import type { PostgresTransactions } from './transaction.js';

type CountRow = { status: StatusCount['status']; count: string };

export function postgresBatchRows(db: PostgresTransactions): BatchRows {
  const tasks = async (batchId: string, from: number, limit: number | undefined) => {
    const { rows } = await db.pool.query<{ task: unknown; outcome: unknown }>(
      'SELECT task, outcome FROM batch_task WHERE batch_id = $1 AND idx >= $2 ORDER BY idx LIMIT $3',
      [batchId, from, limit ?? null],
    );
    return rows.map((row) => ({ task: BatchTaskInput.parse(row.task), outcome: BatchTaskOutcome.parse(row.outcome) }));
  };
  const counted = (rows: CountRow[]) => rows.map((row) => ({ status: row.status, count: Number(row.count) }));

  return {
    async create(batch, tasks) {
      await db.revisioned(
        batch.id,
        async (client) => {
          await client.query(
            `INSERT INTO batch (id, time_created, rev, data) VALUES ($1, $2, nextval('revision'), $3::jsonb)
             ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, data = excluded.data`,
            [batch.id, ...columns(batch)],
          );
          await insertBatchTasks(client, batch.id, tasks);
        },
        () => true,
      );
    },
    async upsert(batch) {
      await db.write(batch.id, UPSERT, columns(batch));
    },
    get: (id) => one(db.pool, 'SELECT data FROM batch WHERE id = $1', [id], BatchRecord),
    list: (limit) =>
      all(db.pool, 'SELECT data FROM batch ORDER BY time_created DESC, id DESC LIMIT $1', [limit], BatchRecord),
    task: async (batchId, index) => (await tasks(batchId, index, 1)).find((row) => row.outcome.index === index),
    tasks,
    async saveOutcomes(batchId, outcomes) {
      // One row per task, the last outcome given for it; the tasks' update runs whether read or not.
      const latest = [...new Map(outcomes.map((outcome) => [outcome.index, outcome])).values()];
      await db.write(
        batchId,
        `UPDATE batch SET rev = nextval('revision') FROM locked WHERE id = $1 RETURNING batch.rev`,
        [
          latest.map((outcome) => outcome.index),
          latest.map((outcome) => JSON.stringify(outcome)),
          latest.map((outcome) => outcome.sessionId ?? null),
        ],
        `outcomes AS (UPDATE batch_task t SET outcome = o.outcome::jsonb, session_id = o.session_id
           FROM locked, unnest($2::int[], $3::text[], $4::text[]) AS o(idx, outcome, session_id)
           WHERE t.batch_id = $1 AND t.idx = o.idx RETURNING 1)`,
      );
    },
    async counts(batchId) {
      const { rows } = await db.pool.query<CountRow>(
        `SELECT outcome->>'status' AS status, COUNT(*) AS count FROM batch_task WHERE batch_id = $1 GROUP BY 1`,
        [batchId],
      );
      return counted(rows);
    },
    async live() {
      const [tasks, waiting, subagents] = await Promise.all([
        db.pool.query<CountRow>(
          `SELECT t.outcome->>'status' AS status, COUNT(*) AS count FROM batch_task t JOIN batch b ON b.id = t.batch_id
           WHERE b.data->>'status' = 'running' GROUP BY 1`,
        ),
        db.pool.query<{ count: string }>(`SELECT COUNT(*) AS count FROM permission_request WHERE status = 'pending'`),
        db.pool.query<{ count: string }>(
          `SELECT COUNT(*) AS count FROM session WHERE parent_id IS NOT NULL AND data->>'status' = 'busy'`,
        ),
      ]);
      return {
        tasksOfRunning: counted(tasks.rows),
        permissionsWaiting: Number(waiting.rows[0]!.count),
        subagentsRunning: Number(subagents.rows[0]!.count),
      };
    },
  };
}

/** A batch's creation time and document: `$2` and `$3` after its id, the subject of the write. */
const columns = (batch: BatchRecord) => [batch.time.created, JSON.stringify(batch)];

const UPSERT = `INSERT INTO batch (id, time_created, rev, data) SELECT $1, $2, nextval('revision'), $3::jsonb FROM locked
  ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, data = excluded.data
  RETURNING rev`;

/** Inserts every task of a new batch, a thousand rows per statement. */
async function insertBatchTasks(
  client: Queryable,
  batchId: string,
  tasks: { task: BatchTaskInput; outcome: BatchTaskOutcome }[],
): Promise<void> {
  const chunk = 1000;
  for (let start = 0; start < tasks.length; start += chunk) {
    const slice = tasks.slice(start, start + chunk);
    await client.query(
      `INSERT INTO batch_task (batch_id, idx, task, session_id, outcome)
       SELECT $1, t.idx, t.task::jsonb, t.session_id, t.outcome::jsonb
       FROM unnest($2::int[], $3::text[], $4::text[], $5::text[]) AS t(idx, task, session_id, outcome)`,
      [
        batchId,
        slice.map(({ outcome }) => outcome.index),
        slice.map(({ task }) => JSON.stringify(task)),
        slice.map(({ task }) => task.session_id ?? null),
        slice.map(({ outcome }) => JSON.stringify(outcome)),
      ],
    );
  }
}
