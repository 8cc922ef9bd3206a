import { ParentClosePolicy, startChild } from '@temporalio/workflow';
import type { ToolCall } from '../../core/tool-call.js';
import type { BatchResult, BatchRunInput } from '../batch.js';
import { BATCH_WORKFLOW_TYPE } from '../api.js';
import { callStore } from './activities.js';
import type { TaskContext } from './task-call.js';

export interface BatchCallInput {
  tasks: { description: string; prompt: string; agent?: string }[];
  agent?: string;
  concurrency?: number;
  retries?: number;
  background?: boolean;
}

/**
 * A `batch` call: a `batchWorkflow` child run. It returns when the batch ends, with every task's
 * outcome, or at once with the batch id (`background`), the batch then outliving this run.
 */
export async function runBatchCall(call: ToolCall, input: BatchCallInput, context: TaskContext): Promise<void> {
  const { config } = context;
  const agent = input.agent ?? 'general';
  for (const name of [agent, ...input.tasks.flatMap((task) => (task.agent ? [task.agent] : []))]) {
    if (!config.subagents.some((candidate) => candidate.name === name)) {
      return callStore.failToolCall({ partId: call.partId, error: `Unknown agent type: ${name} is not a valid agent type` });
    }
  }
  const concurrency = input.concurrency ?? 8;
  const retries = input.retries ?? 1;
  const { batchId, total } = await callStore.createToolBatch({
    partId: call.partId,
    callInput: input as unknown as Record<string, unknown>,
    sessionId: context.sessionId,
    directory: context.directory,
    tasks: input.tasks,
    agent,
    model: config.model,
    concurrency,
    retries,
  });
  const record = { partId: call.partId, input: input as unknown as Record<string, unknown>, batchId, canDelegate: config.tools.includes('task') };
  const run: BatchRunInput = { batchId, directory: context.directory, total, concurrency, retries, modelRetry: context.modelRetry };
  const handle = await startChild<(input: BatchRunInput) => Promise<BatchResult>>(BATCH_WORKFLOW_TYPE, {
    workflowId: batchId,
    args: [run],
    parentClosePolicy: input.background ? ParentClosePolicy.ABANDON : ParentClosePolicy.REQUEST_CANCEL,
    staticSummary: `batch · ${total} tasks from session ${context.sessionId}`,
  });
  if (input.background) return callStore.finishBatchCall(record);
  const progress = await handle.result();
  await callStore.finishBatchCall({ ...record, progress });
}
