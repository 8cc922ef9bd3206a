import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { LoomActivities } from '../../activities/index.js';
import { onHost, store } from '../activity-policies.js';
import type { BatchRunInput } from './state.js';

/**
 * An isolated batch's copies (`loom batch run --isolate`) are made and read on the workspace's
 * host, like its tools: idempotent (a copy is made afresh, a snapshot taken again), so retried.
 */
export function copiesOn(host: string) {
  return proxyActivities<LoomActivities>(
    onHost(
      {
        summary: 'isolated copies',
        startToCloseTimeout: '10 minutes',
        heartbeatTimeout: '10 seconds',
        retry: { initialInterval: '1 second', maximumAttempts: 3 },
      },
      { host },
    ),
  );
}

/** Takes the snapshot of the project the tasks' copies start from; a batch that cannot ends with nothing started. */
export async function takeSnapshot(input: BatchRunInput): Promise<void> {
  try {
    await copiesOn(input.host).prepareIsolatedBatch({ batchId: input.batchId });
  } catch (error) {
    await store.cancelBatchTasks({ batchId: input.batchId, indexes: [], from: 0, total: input.total });
    await store.setBatchStatus({ batchId: input.batchId, status: 'cancelled' });
    throw snapshotFailed(input.batchId, input.host, error);
  }
}

function snapshotFailed(batchId: string, host: string, error: unknown): ApplicationFailure {
  let cause = error as { message?: string; cause?: unknown } | undefined;
  while (cause?.cause) cause = cause.cause as typeof cause;
  return ApplicationFailure.create({
    type: 'IsolationFailed',
    message: `Batch ${batchId} could not take a snapshot of its project on host ${host}: ${cause?.message ?? String(error)}`,
    nonRetryable: true,
  });
}
