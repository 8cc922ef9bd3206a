import { CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { LoomActivities } from '../../activities/index.js';
import type { SessionRunInput } from '../../core/runs/run.js';
import { onHost, type Placement } from '../activity-policies.js';
import { whileHostWaits } from './host-wait.js';
import { drawId } from './ids.js';
import { placementOf, type RunState } from './run-state.js';

/**
 * A snapshot reads every file of a project the first time (seconds for a large one), then only what
 * changed; one that takes minutes is given up, and the step goes on without.
 */
function snapshotActivities(placement: Placement, summary: string) {
  return proxyActivities<LoomActivities>(
    onHost(
      {
        summary,
        startToCloseTimeout: '2 minutes',
        heartbeatTimeout: '10 seconds',
        retry: { initialInterval: '1 second', maximumAttempts: 2 },
      },
      placement,
    ),
  );
}

/**
 * Runs a step's tools between two snapshots of the project's files, taken on the workspace's host,
 * when they may change files (a subagent's work included: it edits the same folder). The files
 * that changed become the step's `patch` part on `messageId`, what `loom diff` shows and `loom
 * revert` undoes. Read-only steps, and sessions with `"snapshot": false`, take none. A snapshot
 * that fails leaves the step without one, never fails it.
 */
export async function betweenSnapshots<T>(
  input: SessionRunInput,
  state: RunState,
  step: { messageId: string; changesFiles: boolean },
  run: () => Promise<T>,
): Promise<T> {
  if (!step.changesFiles || state.config?.snapshot === false) return run();
  const placement = placementOf(input, state);
  const watch = { host: placement.host, state };
  const target = { sessionId: input.sessionId, directory: input.directory };
  const { snapshotBeforeStep } = snapshotActivities(placement, `snapshot · before step ${state.step}`);
  const { recordStepChanges } = snapshotActivities(placement, `snapshot · after step ${state.step}`);
  const before = await whileHostWaits(snapshotBeforeStep(target), watch).catch(skipped);
  if (!before?.tree) return run();
  const partId = drawId(state, 'prt');
  try {
    return await run();
  } finally {
    // A cancelled step's changes are recorded too: they are what a person may want to undo.
    await CancellationScope.nonCancellable(() =>
      whileHostWaits(
        recordStepChanges({ ...target, messageId: step.messageId, partId, from: before.tree! }),
        watch,
      ).catch(skipped),
    );
  }
}

function skipped(error: unknown): undefined {
  if (isCancellation(error)) throw error;
  return undefined;
}
