import { newId } from '../core/ids.js';
import type { BatchRecord, BatchStatus, BatchTaskInput, BatchTaskOutcome } from '../core/batch.js';
import type { ActivityDeps } from './deps.js';

/** A task about to start: its session and what the Temporal UI shows for it. */
export interface ClaimedTask {
  index: number;
  sessionId: string;
  attempt: number;
  description: string;
  agent?: string;
}

export function createBatchActivities({ store }: ActivityDeps) {
  /**
   * Marks tasks as running and gives each attempt its session: a task's own `session_id` for its
   * first attempt, a new session otherwise (a failed attempt's session stays as it was, to inspect).
   */
  async function claimBatchTasks(input: { batchId: string; tasks: { index: number; attempt: number }[] }): Promise<ClaimedTask[]> {
    const claimed: ClaimedTask[] = [];
    const outcomes: BatchTaskOutcome[] = [];
    for (const { index, attempt } of input.tasks) {
      const entry = await store.batchTask(input.batchId, index);
      if (!entry) throw new Error(`Batch ${input.batchId} has no task ${index}`);
      const sessionId = attempt === 1 && entry.task.session_id ? entry.task.session_id : newId('ses', Date.now(), Math.random);
      outcomes.push({ index, status: 'running', sessionId, attempts: attempt });
      claimed.push({ index, sessionId, attempt, description: entry.task.description.slice(0, 120), agent: entry.task.agent });
    }
    await store.saveBatchOutcomes(input.batchId, outcomes);
    return claimed;
  }

  /** What a task's session needs to start: its prompt, agent, model and title. */
  async function loadBatchTask(input: { batchId: string; index: number }): Promise<BatchTaskInput & { defaultAgent: string; defaultModel?: string }> {
    const [batch, entry] = await Promise.all([store.getBatch(input.batchId), store.batchTask(input.batchId, input.index)]);
    if (!batch || !entry) throw new Error(`Batch ${input.batchId} has no task ${input.index}`);
    return { ...entry.task, defaultAgent: batch.agent, defaultModel: batch.model };
  }

  /** Records how tasks ended; a completed task's answer is taken from its session. */
  async function recordBatchOutcomes(input: { batchId: string; outcomes: BatchTaskOutcome[] }): Promise<void> {
    const outcomes = await Promise.all(
      input.outcomes.map(async (outcome) => (outcome.status === 'completed' && outcome.sessionId ? { ...outcome, text: await lastText(outcome.sessionId) } : outcome)),
    );
    await store.saveBatchOutcomes(input.batchId, outcomes);
  }

  /** Marks the tasks that never started as cancelled. */
  async function cancelBatchTasks(input: { batchId: string; indexes: number[]; from: number; total: number }): Promise<void> {
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
    const next: BatchRecord = { ...batch, status: input.status, concurrency: input.concurrency ?? batch.concurrency, time: { ...batch.time, updated: Date.now() } };
    await store.saveBatch(next);
  }

  async function lastText(sessionId: string): Promise<string> {
    const messages = await store.messages(sessionId);
    const text = messages.findLast((m) => m.info.role === 'assistant')?.parts.findLast((p) => p.type === 'text');
    return text?.type === 'text' ? text.text : '';
  }

  return { claimBatchTasks, loadBatchTask, recordBatchOutcomes, cancelBatchTasks, setBatchStatus };
}
