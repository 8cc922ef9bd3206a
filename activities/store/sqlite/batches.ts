import { BatchRecord, BatchTaskInput, BatchTaskOutcome } from '../../../core/batch/batch.js';
import type { BatchRows, StatusCount } from '../batches.js';
import type { SqliteConnection } from './connection.js';
import { readAll, readOne } from './documents.js';

type TaskRow = { task: string; outcome: string };

export function sqliteBatchRows(connection: SqliteConnection): BatchRows {
  const { db } = connection;
  const statements = {
    upsert: db.prepare(
      `INSERT INTO batch (id, time_created, rev, data) VALUES (@id, @created, @rev, @data)
       ON CONFLICT(id) DO UPDATE SET rev = excluded.rev, data = excluded.data`,
    ),
    get: db.prepare('SELECT data FROM batch WHERE id = ?'),
    list: db.prepare('SELECT data FROM batch ORDER BY time_created DESC, id DESC LIMIT ?'),
    insertTask: db.prepare('INSERT INTO batch_task (batch_id, idx, task, session_id, outcome) VALUES (?, ?, ?, ?, ?)'),
    task: db.prepare('SELECT task, outcome FROM batch_task WHERE batch_id = ? AND idx = ?'),
    tasks: db.prepare('SELECT task, outcome FROM batch_task WHERE batch_id = ? AND idx >= ? ORDER BY idx LIMIT ?'),
    saveOutcome: db.prepare('UPDATE batch_task SET outcome = ?, session_id = ? WHERE batch_id = ? AND idx = ?'),
    touch: db.prepare('UPDATE batch SET rev = ? WHERE id = ?'),
    counts: db.prepare(
      `SELECT json_extract(outcome, '$.status') AS status, COUNT(*) AS count FROM batch_task WHERE batch_id = ? GROUP BY status`,
    ),
    tasksOfRunning: db.prepare(
      `SELECT json_extract(t.outcome, '$.status') AS status, COUNT(*) AS count FROM batch_task t JOIN batch b ON b.id = t.batch_id
       WHERE json_extract(b.data, '$.status') = 'running' GROUP BY status`,
    ),
    permissionsWaiting: db.prepare(`SELECT COUNT(*) AS count FROM permission_request WHERE status = 'pending'`).pluck(),
    subagentsRunning: db
      .prepare(
        `SELECT COUNT(*) AS count FROM session WHERE parent_id IS NOT NULL AND json_extract(data, '$.status') = 'busy'`,
      )
      .pluck(),
  };
  const write = (batch: BatchRecord) =>
    statements.upsert.run({
      id: batch.id,
      created: batch.time.created,
      rev: connection.revision(),
      data: JSON.stringify(batch),
    });
  const taskOf = (row: TaskRow) => ({
    task: BatchTaskInput.parse(JSON.parse(row.task)),
    outcome: BatchTaskOutcome.parse(JSON.parse(row.outcome)),
  });

  return {
    async create(batch, tasks) {
      connection.write(() => {
        write(batch);
        for (const { task, outcome } of tasks) {
          statements.insertTask.run(
            batch.id,
            outcome.index,
            JSON.stringify(task),
            task.session_id ?? null,
            JSON.stringify(outcome),
          );
        }
      });
      connection.written(undefined);
    },
    async upsert(batch) {
      connection.write(() => write(batch));
      connection.written(undefined);
    },
    get: async (id) => readOne(statements.get, [id], BatchRecord),
    list: async (limit) => readAll(statements.list, [limit], BatchRecord),
    async task(batchId, index) {
      const row = statements.task.get(batchId, index) as TaskRow | undefined;
      return row && taskOf(row);
    },
    tasks: async (batchId, from, limit) => (statements.tasks.all(batchId, from, limit ?? -1) as TaskRow[]).map(taskOf),
    async saveOutcomes(batchId, outcomes) {
      connection.write(() => {
        for (const outcome of outcomes)
          statements.saveOutcome.run(JSON.stringify(outcome), outcome.sessionId ?? null, batchId, outcome.index);
        // The batch's progress changed: its row takes a new revision, so the event stream says so.
        statements.touch.run(connection.revision(), batchId);
      });
      connection.written(undefined);
    },
    counts: async (batchId) => statements.counts.all(batchId) as StatusCount[],
    live: async () => ({
      tasksOfRunning: statements.tasksOfRunning.all() as StatusCount[],
      permissionsWaiting: statements.permissionsWaiting.get() as number,
      subagentsRunning: statements.subagentsRunning.get() as number,
    }),
  };
}
