import { BatchRecord, BatchTaskInput, BatchTaskOutcome } from '../../core/batch/batch.js';

type TaskCounts = Record<BatchTaskOutcome['status'], number>;
type TaskWithOutcome = { task: BatchTaskInput; outcome: BatchTaskOutcome };

/** What is under way across the whole deployment, for the workers' metrics. */
export interface LiveCounts {
  /** Permission requests waiting for a person. */
  permissionsWaiting: number;
  /** Subagent sessions whose run is busy. */
  subagentsRunning: number;
  /** The tasks of running batches, by status. */
  batchTasks: TaskCounts;
}

export interface BatchRecords {
  /** Stores a batch and its tasks (each pending, attempt 0). */
  createBatch(batch: BatchRecord, tasks: BatchTaskInput[]): Promise<void>;
  saveBatch(batch: BatchRecord): Promise<void>;
  getBatch(id: string): Promise<BatchRecord | undefined>;
  /** Newest first. */
  listBatches(limit?: number): Promise<BatchRecord[]>;
  batchTask(batchId: string, index: number): Promise<TaskWithOutcome | undefined>;
  saveBatchOutcomes(batchId: string, outcomes: BatchTaskOutcome[]): Promise<void>;
  /** How many of a batch's tasks are in each status. */
  batchCounts(batchId: string): Promise<TaskCounts>;
  /** What is under way in the whole store: waiting requests, busy subagents, tasks of running batches. */
  liveCounts(): Promise<LiveCounts>;
  /** Every task with its outcome, in order; `from`/`limit` page through them. */
  batchTasks(batchId: string, page?: { from?: number; limit?: number }): Promise<TaskWithOutcome[]>;
}

/** How many tasks have one status, as a dialect counts them. */
export type StatusCount = { status: BatchTaskOutcome['status']; count: number };

/** Batch rows as a dialect stores them; what it is given is already validated. */
export interface BatchRows {
  /** Writes the batch at a new revision, and its tasks. */
  create(batch: BatchRecord, tasks: TaskWithOutcome[]): Promise<void>;
  /** Writes the batch at a new revision. */
  upsert(batch: BatchRecord): Promise<void>;
  get(id: string): Promise<BatchRecord | undefined>;
  list(limit: number): Promise<BatchRecord[]>;
  task(batchId: string, index: number): Promise<TaskWithOutcome | undefined>;
  /** Without `limit`, every task from `from` on. */
  tasks(batchId: string, from: number, limit: number | undefined): Promise<TaskWithOutcome[]>;
  /** Writes the outcomes and gives the batch a new revision, in one transaction. */
  saveOutcomes(batchId: string, outcomes: BatchTaskOutcome[]): Promise<void>;
  counts(batchId: string): Promise<StatusCount[]>;
  live(): Promise<{ tasksOfRunning: StatusCount[]; permissionsWaiting: number; subagentsRunning: number }>;
}

export function batchRecords(rows: BatchRows): BatchRecords {
  return {
    async createBatch(batch, tasks) {
      const valid = BatchRecord.parse(batch);
      const pending = tasks.map((task, index) => ({
        task: BatchTaskInput.parse(task),
        outcome: pendingOutcome(index, task),
      }));
      await rows.create(valid, pending);
    },
    saveBatch: async (batch) => rows.upsert(BatchRecord.parse(batch)),
    getBatch: async (id) => rows.get(id),
    listBatches: async (limit = 50) => rows.list(limit),
    batchTask: async (batchId, index) => rows.task(batchId, index),
    saveBatchOutcomes: async (batchId, outcomes) =>
      rows.saveOutcomes(
        batchId,
        outcomes.map((outcome) => BatchTaskOutcome.parse(outcome)),
      ),
    batchCounts: async (batchId) => byStatus(await rows.counts(batchId)),
    async liveCounts() {
      const live = await rows.live();
      return {
        permissionsWaiting: live.permissionsWaiting,
        subagentsRunning: live.subagentsRunning,
        batchTasks: byStatus(live.tasksOfRunning),
      };
    },
    batchTasks: async (batchId, page = {}) => rows.tasks(batchId, page.from ?? 0, page.limit),
  };
}

function pendingOutcome(index: number, task: BatchTaskInput): BatchTaskOutcome {
  return { index, status: 'pending', attempts: 0, sessionId: task.session_id };
}

function byStatus(counts: StatusCount[]): TaskCounts {
  const byStatus = { pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
  for (const { status, count } of counts) byStatus[status] = count;
  return byStatus;
}
