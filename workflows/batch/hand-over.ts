import {
  ActivityCancellationType,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { LoomActivities } from '../../activities/index.js';
import type { BatchProgress } from '../../core/batch/batch.js';
import { failedEnd, type BatchTaskEnd } from '../../core/batch/batch-task-end.js';
import { copiesOn } from './isolation.js';
import { taskEnded, writeOutcomes } from './outcomes.js';
import { showProgress } from './progress.js';
import { carriedState, type BatchRunInput, type BatchState, type TaskScopes } from './state.js';
import { canStart, fillWindow } from './window.js';

/** Temporal suggests continue-as-new at 4,096 events or 4 MiB; a batch run continues as new before that. */
const DRAIN_AT_EVENTS = 3_000;
const DRAIN_AT_BYTES = 3 * 1024 * 1024;

/** Stop starting tasks a little before Temporal's suggestion, so the run still ends under its thresholds. */
export function nearLimits(input: BatchRunInput): boolean {
  const info = workflowInfo();
  return (
    info.continueAsNewSuggested ||
    info.historyLength > (input.continueAtEvents ?? DRAIN_AT_EVENTS) ||
    info.historySize > DRAIN_AT_BYTES
  );
}

/** No task is starting or having its changes read: the running ones can be handed over. */
export function settled(state: BatchState): boolean {
  return [...state.running.values()].every((task) => task.phase === 'running');
}

/**
 * Continues as new, handing the running tasks to the next run: they outlive this one, and the next
 * waits for their ends. Returns only when a cancel came in meanwhile, which is this run's to carry out.
 */
export async function handOver(
  input: BatchRunInput,
  state: BatchState,
  scopes: TaskScopes,
  watcher: CancellationScope,
): Promise<void> {
  await writeOutcomes(input, state);
  // The next run takes over a full window: fill it once more (again if tasks end meanwhile).
  for (let fills = 0; fills < 3 && canStart(input, state); fills++) {
    await fillWindow(input, state, scopes);
    await condition(() => settled(state));
  }
  await condition(allHandlersFinished);
  if (state.cancelRequested) return;
  watcher.cancel();
  await continueAsNew<(input: BatchRunInput) => Promise<BatchProgress>>({ ...input, carried: carriedState(state) });
}

/** Lasts as long as the tasks it waits for; heartbeats, and is cancelled when the run continues as new. */
const taskEnds = proxyActivities<LoomActivities>({
  summary: 'tasks handed over',
  startToCloseTimeout: '1 day',
  heartbeatTimeout: '30 seconds',
  cancellationType: ActivityCancellationType.TRY_CANCEL,
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Follows the tasks an earlier run handed over until none is left, in the scope it returns: the
 * run cancels it when it continues as new in turn.
 */
export function followHandedOver(input: BatchRunInput, state: BatchState): CancellationScope {
  const watcher = new CancellationScope();
  if (state.running.size > 0) {
    void watcher
      .run(() => watchHandedOver(input, state))
      .catch((error: unknown) => {
        if (!isCancellation(error)) throw error;
      });
  }
  return watcher;
}

async function watchHandedOver(input: BatchRunInput, state: BatchState): Promise<void> {
  for (let tasks = handedOver(state); tasks.length > 0; tasks = handedOver(state)) {
    const ends = await taskEnds.awaitBatchTaskEnds({ tasks });
    for (const { index, ...end } of ends) handedOverEnded(input, state, index, end);
  }
}

function handedOver(state: BatchState) {
  return [...state.running].flatMap(([index, task]) =>
    task.handedOver && task.phase === 'running' ? [{ index, sessionId: task.sessionId, runId: task.runId! }] : [],
  );
}

/** A handed-over task's end, reported once; an isolated task's changes are read first, as for the others. */
function handedOverEnded(input: BatchRunInput, state: BatchState, index: number, end: BatchTaskEnd): void {
  const task = state.running.get(index);
  if (!task?.handedOver || task.phase !== 'running') return;
  const done = () => {
    state.running.delete(index);
    showProgress(input, state);
  };
  if (!input.isolate || end.status !== 'completed') {
    taskEnded(input, state, { index, ...task }, end);
    return done();
  }
  task.phase = 'finishing';
  void copiesOn(input.host)
    .finishTaskCopy({ batchId: input.batchId, index })
    .then(
      (changes) => taskEnded(input, state, { index, ...task }, end, changes),
      (error: unknown) => taskEnded(input, state, { index, ...task }, failedEnd(error, isCancellation(error))),
    )
    .finally(done);
}
