import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { LoomActivities } from '../activities/index.js';
import { onHost } from './activity-policies.js';

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

/** The batch could not take the snapshot its copies start from: it ends with nothing started. */
export function snapshotFailed(batchId: string, host: string, error: unknown): ApplicationFailure {
  let cause = error as { message?: string; cause?: unknown } | undefined;
  while (cause?.cause) cause = cause.cause as typeof cause;
  return ApplicationFailure.create({
    type: 'IsolationFailed',
    message: `Batch ${batchId} could not take a snapshot of its project on host ${host}: ${cause?.message ?? String(error)}`,
    nonRetryable: true,
  });
}
