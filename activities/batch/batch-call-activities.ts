import type { BatchRecord, BatchProgress } from '../../core/batch/batch.js';
import { derivedId } from '../../core/records/ids.js';
import { batch as batchSpec } from '../../core/tools/batch.js';
import type { ActivityDeps } from '../deps.js';
import { toolOutputDir } from '../process/paths.js';
import { setToolState, toolInputOf } from '../tools/running/tool-state.js';
import { truncateOutput } from '../tools/running/truncate.js';

/** The store side of the `batch` tool: the batch record, and the call's result. */
export function createBatchCallActivities({ store, dataDir }: ActivityDeps) {
  /** Stores the batch a call asked for and marks the call running, linked to it. */
  async function createToolBatch(input: {
    partId: string;
    sessionId: string;
    directory: string;
    agent: string;
    model?: string;
    concurrency: number;
    retries: number;
  }): Promise<{ batchId: string; total: number }> {
    const now = Date.now();
    const callInput = await toolInputOf(store, input.partId);
    const { tasks } = batchSpec.parameters.parse(callInput);
    // Derived from the call, so a retried activity finds the batch it made instead of making another.
    const id = derivedId('bat', input.partId);
    const existing = await store.getBatch(id);
    const batch: BatchRecord = existing ?? {
      id,
      source: 'batch tool',
      sourceBytes: JSON.stringify(tasks).length,
      total: tasks.length,
      directory: input.directory,
      agent: input.agent,
      model: input.model,
      concurrency: input.concurrency,
      retries: input.retries,
      parentSessionID: input.sessionId,
      status: 'running',
      time: { created: now, updated: now },
    };
    if (!existing) await store.createBatch(batch, tasks);
    await setToolState(store, input.partId, {
      status: 'running',
      input: callInput,
      title: `batch ${batch.id}`,
      metadata: { batchId: batch.id, total: batch.total },
      time: { start: now },
    });
    return { batchId: batch.id, total: batch.total };
  }

  /** Writes a batch call's result: a summary line, then one line per task with its answer's first line. */
  async function finishBatchCall(input: {
    partId: string;
    batchId: string;
    progress?: BatchProgress;
    error?: string;
    canDelegate: boolean;
  }) {
    const part = await store.getPart(input.partId);
    const start = part?.type === 'tool' && part.state.status === 'running' ? part.state.time.start : Date.now();
    const callInput = part?.type === 'tool' ? part.state.input : {};
    const metadata = { batchId: input.batchId, ...(input.progress ? { progress: input.progress } : {}) };
    if (input.error) {
      await setToolState(store, input.partId, {
        status: 'error',
        input: callInput,
        error: input.error,
        metadata,
        time: { start, end: Date.now() },
      });
      return;
    }
    const lines: string[] = [];
    if (input.progress) {
      const p = input.progress;
      lines.push(
        `Batch ${input.batchId} ${p.status}: ${p.done} done, ${p.failed} failed, ${p.cancelled} cancelled of ${p.total}.`,
        '',
      );
      for (const { task, outcome } of await store.batchTasks(input.batchId)) {
        const answer = (outcome.text ?? outcome.error ?? '').replace(/\s+/g, ' ').slice(0, 300);
        lines.push(
          `${outcome.index + 1}. [${outcome.status}] ${task.description} (session ${outcome.sessionId ?? '-'}): ${answer}`,
        );
      }
    } else {
      lines.push(
        `Batch ${input.batchId} started in the background. The user can follow it with \`loom batch status ${input.batchId} --watch\`.`,
      );
    }
    const cut = await truncateOutput(lines.join('\n'), {
      dir: toolOutputDir(dataDir),
      name: input.partId,
      canDelegate: input.canDelegate,
    });
    await setToolState(store, input.partId, {
      status: 'completed',
      input: callInput,
      output: cut.output,
      title: `batch ${input.batchId}`,
      metadata: { ...metadata, truncated: cut.truncated, ...(cut.outputPath ? { outputPath: cut.outputPath } : {}) },
      time: { start, end: Date.now() },
    });
  }

  return { createToolBatch, finishBatchCall };
}
