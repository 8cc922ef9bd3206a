import type { CancellationScope } from '@temporalio/workflow';
import type { HandedOverTask } from '../../activities/batch/task-end-activities.js';
import type { BatchTaskOutcome } from '../../core/batch/batch.js';
import type { Budget } from '../../core/runs/budget.js';
import type { ModelRetry } from '../../core/runs/run.js';
import { zeroTokens, type Tokens } from '../../core/records/tokens.js';

export interface BatchRunInput {
  batchId: string;
  directory: string;
  /** The workspace's host: every task's tools run there. */
  host: string;
  total: number;
  concurrency: number;
  retries: number;
  modelRetry?: ModelRetry;
  /** Where `loom serve`'s web view is: each task's run links to its session's page. */
  webUrl?: string;
  /** `false`: the namespace lacks Loom's search attributes; task runs set none (see `SessionRunInput`). */
  searchAttributes?: false;
  /**
   * Each task works in a copy of the project taken when the batch started (`loom batch run
   * --isolate`); without it, in the project itself.
   */
  isolate?: true;
  /** The budget of each task's session and its subagents (`--task-max-tokens`, `--task-max-cost`). */
  taskBudget?: Budget;
  /** Continue as new past this many events of history (default 3,000; tests lower it). */
  continueAtEvents?: number;
  /** State handed over by continue-as-new. */
  carried?: BatchCarried;
}

/** The counts a batch's runs pass on, one to the next. */
interface BatchCounters {
  /** The first task never tried. */
  nextIndex: number;
  /** Failed tasks to try again, each with its next attempt. */
  retryQueue: { index: number; attempt: number }[];
  done: number;
  failed: number;
  cancelled: number;
  tokens: Tokens;
  concurrency: number;
  paused: boolean;
  started: number;
  /** The batch's own budget was reached: no task starts any more (why, in the batch's words). */
  budgetReached?: string;
}

export interface BatchCarried extends BatchCounters {
  /** Tasks still running when the run continued as new; the next run waits for their ends. */
  running?: CarriedTask[];
  /** Outcomes that came in after the last write: the next run writes them. */
  unwritten?: BatchTaskOutcome[];
}

/**
 * A task running when its run continued as new, as the next run carries it: a batch run hands its
 * running tasks to the next run rather than letting them finish first, so the window stays full.
 */
interface CarriedTask extends HandedOverTask {
  attempt: number;
}

/**
 * A task under way: `starting` until its session's run has started, `running` while it works,
 * `finishing` while an isolated task's changes are read. A task of this run can be cancelled
 * through its scope (see `TaskScopes`); one an earlier run `handedOver`, by its session id.
 */
export interface RunningTask {
  attempt: number;
  sessionId: string;
  phase: 'starting' | 'running' | 'finishing';
  runId?: string;
  handedOver?: true;
}

/** The cancellation scopes of the tasks this run started, by index: handles, kept out of the state. */
export type TaskScopes = Map<number, CancellationScope>;

/**
 * What steers one run of a batch. The task list stays in the store: a run only holds counters, the
 * tasks under way and outcomes not yet written.
 */
export interface BatchState extends BatchCounters {
  cancelRequested: boolean;
  /** The tasks under way by index, in the order they started: cancelling them issues commands in that order. */
  running: Map<number, RunningTask>;
  /** Outcomes not written to the store yet. */
  unwritten: BatchTaskOutcome[];
  /** A claim is out: no other starts until it is back. */
  claiming: boolean;
  /** Near Temporal's limits: no task starts, and the run continues as new once its tasks are settled. */
  draining: boolean;
  /** The status and concurrency the store holds (see `statusChanged`). */
  statusWritten: string;
}

export function initialState(input: BatchRunInput): BatchState {
  const carried = input.carried;
  return {
    nextIndex: carried?.nextIndex ?? 0,
    retryQueue: [...(carried?.retryQueue ?? [])],
    done: carried?.done ?? 0,
    failed: carried?.failed ?? 0,
    cancelled: carried?.cancelled ?? 0,
    tokens: carried?.tokens ?? zeroTokens(),
    concurrency: carried?.concurrency ?? input.concurrency,
    paused: carried?.paused ?? false,
    started: carried?.started ?? Date.now(),
    cancelRequested: false,
    budgetReached: carried?.budgetReached,
    running: new Map<number, RunningTask>(
      (carried?.running ?? []).map(({ index, attempt, sessionId, runId }) => [
        index,
        { attempt, sessionId, runId, phase: 'running', handedOver: true },
      ]),
    ),
    unwritten: [...(carried?.unwritten ?? [])],
    claiming: false,
    draining: false,
    statusWritten: '',
  };
}

/** What the next run takes over: the counters, the tasks still running and the outcomes not written. */
export function carriedState(state: BatchState): BatchCarried {
  return {
    nextIndex: state.nextIndex,
    retryQueue: state.retryQueue,
    done: state.done,
    failed: state.failed,
    cancelled: state.cancelled,
    tokens: state.tokens,
    concurrency: state.concurrency,
    paused: state.paused,
    started: state.started,
    ...(state.budgetReached ? { budgetReached: state.budgetReached } : {}),
    ...(state.running.size > 0
      ? {
          running: [...state.running].map(([index, task]) => ({
            index,
            attempt: task.attempt,
            sessionId: task.sessionId,
            runId: task.runId!,
          })),
        }
      : {}),
    ...(state.unwritten.length > 0 ? { unwritten: [...state.unwritten] } : {}),
  };
}

/** Tasks not started yet: those to try again and those never tried. */
export function waiting(input: BatchRunInput, state: BatchState): number {
  return state.retryQueue.length + (input.total - state.nextIndex);
}
