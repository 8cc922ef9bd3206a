import { ParentClosePolicy, startChild } from '@temporalio/workflow';
import { batchControlPriority } from '../../core/runs/task-priority.js';
import type { BatchCallPlan } from '../../core/tool-call/plan.js';
import { batchPageUrl, webLinkDetails } from '../../core/runs/web-links.js';
import type { BatchResult, BatchRunInput } from '../batch.js';
import { BATCH_WORKFLOW_TYPE } from '../api.js';
import { callStore } from '../activity-policies.js';
import type { CallRef, TaskContext } from './task-call.js';

/**
 * A `batch` call: a `batchWorkflow` child run. It returns when the batch ends, with every task's
 * outcome, or at once with the batch id (`background`), the batch then outliving this run. The
 * tasks go from the call's part to the store without passing through here.
 */
export async function runBatchCall(call: CallRef, input: BatchCallPlan, context: TaskContext): Promise<void> {
  const { config } = context;
  const agent = input.agent ?? 'general';
  for (const name of input.agents) {
    if (!config.subagents.some((candidate) => candidate.name === name)) {
      return callStore.failToolCall({
        partId: call.partId,
        error: `Unknown agent type: ${name} is not a valid agent type`,
      });
    }
  }
  const concurrency = input.concurrency ?? 8;
  const retries = input.retries ?? 1;
  const { batchId, total } = await callStore.createToolBatch({
    partId: call.partId,
    sessionId: context.sessionId,
    directory: context.directory,
    agent,
    model: config.model,
    concurrency,
    retries,
  });
  const record = {
    partId: call.partId,
    batchId,
    canDelegate: config.tools.includes('task'),
  };
  const run: BatchRunInput = {
    batchId,
    directory: context.directory,
    host: context.host,
    total,
    concurrency,
    retries,
    modelRetry: context.modelRetry,
    ...(context.webUrl ? { webUrl: context.webUrl } : {}),
    searchAttributes: context.searchAttributes,
  };
  const handle = await startChild<(input: BatchRunInput) => Promise<BatchResult>>(BATCH_WORKFLOW_TYPE, {
    workflowId: batchId,
    args: [run],
    parentClosePolicy: input.background ? ParentClosePolicy.ABANDON : ParentClosePolicy.REQUEST_CANCEL,
    staticSummary: `batch · ${total} tasks from session ${context.sessionId}`,
    ...(context.webUrl ? { staticDetails: webLinkDetails(batchPageUrl(context.webUrl, batchId)).trim() } : {}),
    // Priority is command metadata, which replay does not compare (test/replay): no patch.
    priority: batchControlPriority(batchId),
  });
  if (input.background) return callStore.finishBatchCall(record);
  const progress = await handle.result();
  await callStore.finishBatchCall({ ...record, progress });
}
