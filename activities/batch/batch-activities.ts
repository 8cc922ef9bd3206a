import { batchTaskPromptId, idTime, seededId } from '../../core/records/ids.js';
import { preview } from '../../core/records/prompt.js';
import { lastText } from '../session/last-text.js';
import { storePrompt } from '../session/stored-prompt.js';
import type { BatchRecord, BatchStatus, BatchTaskOutcome } from '../../core/batch/batch.js';
import type { ActivityDeps } from '../deps.js';

/** A task about to start: its session and what the Temporal UI shows for it. */
export interface ClaimedTask {
  index: number;
  sessionId: string;
  attempt: number;
  description: string;
  agent?: string;
  /** The task's folder, relative to the batch's directory (tasks without one run in that directory). */
  directory?: string;
}

/** A batch task, as its session's run needs it. */
export interface LoadedBatchTask {
  agent?: string;
  model?: string;
  description: string;
  promptId: string;
  defaultAgent: string;
  defaultModel?: string;
  /** The run's time limit: the task's `timeout`, else the batch's `taskTimeout`. */
  timeoutMs?: number;
}

/** The session of a batch task's attempt after its first (which may continue a session of its own). */
export function batchTaskSessionId(batchId: string, index: number, attempt: number): string {
  return seededId('ses', idTime(batchId), `${batchId}:${index}:${attempt}`);
}

export function createBatchActivities({ store }: ActivityDeps) {
  /**
   * Marks tasks as running and gives each attempt its session: a task's own `session_id` for its
   * first attempt, a new session otherwise (a failed attempt's session stays as it was, to inspect).
   */
  async function claimBatchTasks(input: {
    batchId: string;
    tasks: { index: number; attempt: number }[];
  }): Promise<ClaimedTask[]> {
    const claimed: ClaimedTask[] = [];
    const outcomes: BatchTaskOutcome[] = [];
    for (const { index, attempt } of input.tasks) {
      const entry = await store.batchTask(input.batchId, index);
      if (!entry) throw new Error(`Batch ${input.batchId} has no task ${index}`);
      // Derived, so a claim that is made again (its workflow task was retried) names the same session.
      const sessionId =
        attempt === 1 && entry.task.session_id
          ? entry.task.session_id
          : batchTaskSessionId(input.batchId, index, attempt);
      outcomes.push({ index, status: 'running', sessionId, attempts: attempt });
      claimed.push({
        index,
        sessionId,
        attempt,
        description: entry.task.description.slice(0, 120),
        agent: entry.task.agent,
        // Only when set, so the claims of tasks without one record what they always did.
        ...(entry.task.directory ? { directory: entry.task.directory } : {}),
      });
    }
    await store.saveBatchOutcomes(input.batchId, outcomes);
    return claimed;
  }

  /**
   * What a task's session needs to start: its agent, model and title, and its prompt stored as a
   * prompt of its own, by id.
   */
  async function loadBatchTask(input: { batchId: string; index: number }): Promise<LoadedBatchTask> {
    const [batch, entry] = await Promise.all([
      store.getBatch(input.batchId),
      store.batchTask(input.batchId, input.index),
    ]);
    if (!batch || !entry) throw new Error(`Batch ${input.batchId} has no task ${input.index}`);
    const promptId = batchTaskPromptId(input.batchId, input.index);
    await storePrompt(store, promptId, entry.task.prompt);
    const { agent, model, description } = entry.task;
    const timeoutMs = entry.task.timeout ?? batch.taskTimeout;
    return {
      agent,
      model,
      description: preview(description, 200),
      promptId,
      defaultAgent: batch.agent,
      defaultModel: batch.model,
      ...(timeoutMs ? { timeoutMs } : {}),
    };
  }

  /** Records how tasks ended; a completed task's answer is taken from its session. */
  async function recordBatchOutcomes(input: { batchId: string; outcomes: BatchTaskOutcome[] }): Promise<void> {
    const outcomes = await Promise.all(
      input.outcomes.map(async (outcome) =>
        outcome.status === 'completed' && outcome.sessionId
          ? { ...(await withFiles(input.batchId, outcome)), text: await lastText(store, outcome.sessionId) }
          : outcome,
      ),
    );
    await store.saveBatchOutcomes(input.batchId, outcomes);
  }

  /**
   * An isolated task's outcome names its copy's snapshot; the files it changed were written on the
   * stored outcome by the host (`finishTaskCopy`), and stay.
   */
  async function withFiles(batchId: string, outcome: BatchTaskOutcome): Promise<BatchTaskOutcome> {
    if (!outcome.changes || outcome.changes.files) return outcome;
    const stored = (await store.batchTask(batchId, outcome.index))?.outcome.changes;
    return stored?.tree === outcome.changes.tree ? { ...outcome, changes: stored } : outcome;
  }

  /** Marks the tasks that never started as cancelled. */
  async function cancelBatchTasks(input: {
    batchId: string;
    indexes: number[];
    from: number;
    total: number;
  }): Promise<void> {
    const indexes = [...input.indexes];
    for (let index = input.from; index < input.total; index++) indexes.push(index);
    const outcomes: BatchTaskOutcome[] = [];
    for (const index of indexes) {
      const entry = await store.batchTask(input.batchId, index);
      if (entry) outcomes.push({ ...entry.outcome, index, status: 'cancelled' });
    }
    await store.saveBatchOutcomes(input.batchId, outcomes);
  }

  async function setBatchStatus(input: { batchId: string; status: BatchStatus; concurrency?: number }): Promise<void> {
    const batch = await store.getBatch(input.batchId);
    if (!batch) return;
    const next: BatchRecord = {
      ...batch,
      status: input.status,
      concurrency: input.concurrency ?? batch.concurrency,
      time: { ...batch.time, updated: Date.now() },
    };
    await store.saveBatch(next);
  }

  return { claimBatchTasks, loadBatchTask, recordBatchOutcomes, cancelBatchTasks, setBatchStatus };
}
