import {
  CancellationScope,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  getExternalWorkflowHandle,
  isCancellation,
  startChild,
  type ChildWorkflowOptions,
} from '@temporalio/workflow';
import type { ClaimedTask } from '../../activities/batch/batch-activities.js';
import { failedEnd } from '../../core/batch/batch-task-end.js';
import { escapeMarkdownInline } from '../../core/text/markdown-escape.js';
import { resolvePath } from '../../core/text/path.js';
import type { SessionRunInput, SessionRunResult } from '../../core/runs/run.js';
import { AgentAttribute, RootSessionAttribute, withSearchAttributes } from '../../core/runs/search-attributes.js';
import { batchTaskPriority } from '../../core/runs/task-priority.js';
import { sessionPageUrl, webLinkDetails } from '../../core/runs/web-links.js';
import { SESSION_WORKFLOW_TYPE } from '../api.js';
import { copiesOn } from './isolation.js';
import { taskEnded } from './outcomes.js';
import { showProgress } from './progress.js';
import type { BatchRunInput, BatchState, RunningTask, TaskScopes } from './state.js';

type SessionRun = (input: SessionRunInput) => Promise<SessionRunResult>;

/**
 * Runs a claimed task as a child session run, in a scope of its own; in a copy of the project when
 * the batch is isolated, whose changes are read when the run ends. Its end is counted, and it
 * leaves the window.
 */
export function startTask(input: BatchRunInput, state: BatchState, scopes: TaskScopes, task: ClaimedTask): void {
  const scope = new CancellationScope();
  const running: RunningTask = { attempt: task.attempt, sessionId: task.sessionId, phase: 'starting' };
  state.running.set(task.index, running);
  scopes.set(task.index, scope);
  const copies = copiesOn(input.host);
  void scope
    .run(async () => {
      const copy = input.isolate
        ? await copies.prepareTaskCopy({ batchId: input.batchId, index: task.index })
        : undefined;
      const handle = await startChild<SessionRun>(SESSION_WORKFLOW_TYPE, childOptions(input, task, copy?.directory));
      running.runId = handle.firstExecutionRunId;
      running.phase = 'running';
      const result = await handle.result();
      running.phase = 'finishing';
      const changes = copy ? await copies.finishTaskCopy({ batchId: input.batchId, index: task.index }) : undefined;
      return { result, changes };
    })
    .then(
      ({ result, changes }) => taskEnded(input, state, task, { status: 'completed', tokens: result.tokens }, changes),
      (error: unknown) => taskEnded(input, state, task, failedEnd(error, isCancellation(error))),
    )
    .finally(() => {
      state.running.delete(task.index);
      scopes.delete(task.index);
      showProgress(input, state);
    });
}

/** The task's session run: in `copy`, an isolated task's copy of the project, when there is one. */
function childOptions(
  input: BatchRunInput,
  task: ClaimedTask,
  copy: string | undefined,
): ChildWorkflowOptions & { args: [SessionRunInput] } {
  const child: SessionRunInput = {
    sessionId: task.sessionId,
    directory: task.directory ? resolvePath(input.directory, task.directory) : input.directory,
    host: input.host,
    batchTask: { batchId: input.batchId, index: task.index },
    quietResult: true,
    modelRetry: input.modelRetry,
    ...(input.webUrl ? { webUrl: input.webUrl } : {}),
    searchAttributes: input.searchAttributes,
    ...(input.taskBudget ? { budget: input.taskBudget } : {}),
  };
  return {
    workflowId: task.sessionId,
    args: [copy !== undefined ? { ...child, directory: copy } : child],
    cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    // Handed over, a task outlives the run that started it; the batch cancels it by id.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    staticSummary: `${task.agent ?? 'batch'} · ${escapeMarkdownInline(task.description)}`,
    ...(input.webUrl ? { staticDetails: webLinkDetails(sessionPageUrl(input.webUrl, task.sessionId)).trim() } : {}),
    ...withSearchAttributes(input.searchAttributes, [
      ...(task.agent ? [{ key: AgentAttribute, value: task.agent }] : []),
      { key: RootSessionAttribute, value: task.sessionId },
    ]),
    priority: batchTaskPriority(input.batchId),
  };
}

/** A cancelled batch cancels its tasks under way: this run's through their scopes, handed-over ones by id. */
export function cancelTasks(state: BatchState, scopes: TaskScopes): void {
  for (const [index, task] of state.running) {
    const scope = scopes.get(index);
    if (scope) scope.cancel();
    else void cancelTask(task.sessionId);
  }
}

/** The batch's run itself is cancelled (its parent session was, say): its tasks outlive it unless told. */
export function cancelTasksById(state: BatchState): Promise<void[]> {
  return Promise.all([...state.running.values()].map((task) => cancelTask(task.sessionId)));
}

/**
 * Asks a task's session run to stop, by its id: the batch's runs do not close their tasks when
 * they end. One that has ended already refuses, which is fine.
 */
function cancelTask(sessionId: string): Promise<void> {
  return getExternalWorkflowHandle(sessionId)
    .cancel()
    .catch(() => undefined);
}
