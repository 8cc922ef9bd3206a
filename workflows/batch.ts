import {
  CancellationScope,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  setCurrentDetails,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { BatchProgress, BatchStatus, BatchTaskOutcome } from '../core/batch.js';
import type { Budget } from '../core/budget.js';
import { resolvePath } from '../core/path.js';
import { escapeMarkdownInline } from '../core/markdown-escape.js';
import { addTokens, zeroTokens, type Tokens } from '../core/tokens.js';
import type { ModelRetry, SessionRunInput, SessionRunResult } from '../core/run.js';
import { AgentAttribute, RootSessionAttribute, withSearchAttributes } from '../core/search-attributes.js';
import { batchTaskPriority } from '../core/task-priority.js';
import { sessionPageUrl, webLinkDetails } from '../core/web-links.js';
import { SESSION_WORKFLOW_TYPE, batchControlUpdate, batchProgressQuery } from './api.js';
import type { ClaimedTask } from '../activities/batch.js';
import { store } from './activity-policies.js';
import { copiesOn, snapshotFailed } from './batch-isolation.js';
import { failedEnd, type BatchTaskEnd } from '../core/batch-task-end.js';
import { cancelTask, watchHandedOver, type CarriedTask } from './batch-hand-over.js';

/** Outcomes are written to the store in groups, so history grows by one activity per group. */
const FLUSH_EVERY = 25;
/** Tasks claimed (given sessions) per activity call. */
const CLAIM_PAGE = 50;
/** Temporal suggests continue-as-new at 4,096 events or 4 MiB; a batch run continues as new before that. */
const DRAIN_AT_EVENTS = 3_000;
const DRAIN_AT_BYTES = 3 * 1024 * 1024;

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

interface BatchCarried {
  nextIndex: number;
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
  /** Tasks still running when the run continued as new; the next run waits for their ends. */
  running?: CarriedTask[];
  /** Outcomes that came in after the last write: the next run writes them. */
  unwritten?: BatchTaskOutcome[];
}

/**
 * A task under way: `starting` until its session's run has started, `running` while it works,
 * `finishing` while an isolated task's changes are read. A task of this run can be cancelled
 * through its scope; one an earlier run `handedOver`, by its session id.
 */
interface RunningTask {
  attempt: number;
  sessionId: string;
  phase: 'starting' | 'running' | 'finishing';
  runId?: string;
  scope?: CancellationScope;
  handedOver?: true;
}

export type BatchResult = BatchProgress;

/**
 * Runs a batch's tasks as child session runs, at most `concurrency` at a time, retrying failed
 * tasks up to `retries` times. The task list stays in the store: this run only holds counters, the
 * tasks under way and outcomes not yet written. It continues as new when Temporal suggests it, so
 * a batch of any size stays within Temporal's limits, handing the running tasks to the next run:
 * they outlive the run that started them, and the next one waits for their ends.
 */
export async function batchWorkflow(input: BatchRunInput): Promise<BatchResult> {
  const carried = input.carried;
  const state = {
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
  };
  const status = (): BatchStatus => (state.cancelRequested ? 'cancelled' : state.paused ? 'paused' : 'running');
  const progress = (final?: BatchStatus): BatchProgress => ({
    batchId: input.batchId,
    status: final ?? status(),
    total: input.total,
    done: state.done,
    failed: state.failed,
    cancelled: state.cancelled,
    running: state.running.size,
    pending: input.total - state.done - state.failed - state.cancelled - state.running.size,
    concurrency: state.concurrency,
    tokens: state.tokens,
    started: state.started,
  });
  const show = () => {
    const p = progress();
    setCurrentDetails(
      `**${p.status}** · ${p.done} done · ${p.failed} failed · ${p.running} running · ${p.pending} waiting of ${p.total} (concurrency ${p.concurrency})`,
    );
  };
  setHandler(batchProgressQuery, () => progress());
  // The handler only changes state: anything it awaited would interleave its commands with the
  // loop's. The loop writes the new status to the store.
  setHandler(
    batchControlUpdate,
    (control) => {
      if (control.action === 'pause') state.paused = true;
      if (control.action === 'resume') state.paused = false;
      if (control.action === 'concurrency') state.concurrency = control.value;
      if (control.action === 'cancel') {
        state.cancelRequested = true;
        for (const task of state.running.values()) {
          if (task.scope) task.scope.cancel();
          else void cancelTask(task.sessionId);
        }
      }
      show();
      return progress();
    },
    {
      validator: (control) => {
        if (state.cancelRequested) throw new Error(`Batch ${input.batchId} is being cancelled.`);
        if (control.action === 'concurrency' && !(Number.isInteger(control.value) && control.value >= 1)) {
          throw new Error(`Concurrency must be a whole number of at least 1, not ${control.value}.`);
        }
      },
    },
  );

  const copies = copiesOn(input.host);
  if (input.isolate && !carried) {
    try {
      await copies.prepareIsolatedBatch({ batchId: input.batchId });
    } catch (error) {
      await store.cancelBatchTasks({ batchId: input.batchId, indexes: [], from: 0, total: input.total });
      await store.setBatchStatus({ batchId: input.batchId, status: 'cancelled' });
      throw snapshotFailed(input.batchId, input.host, error);
    }
  }

  const waiting = () => state.retryQueue.length + (input.total - state.nextIndex);
  const canStart = () =>
    !state.budgetReached &&
    !state.paused &&
    !state.cancelRequested &&
    state.running.size < state.concurrency &&
    waiting() > 0 &&
    !state.claiming;
  const flush = async () => {
    if (state.unwritten.length === 0) return;
    const outcomes = state.unwritten.splice(0);
    await store.recordBatchOutcomes({ batchId: input.batchId, outcomes });
  };

  /**
   * What was claimed is what history recorded. A replay may reach a claim at another moment than
   * the run did (local activity results and child completions interleave), and so pick other
   * tasks; the claim's recorded result decides, so no task is started twice or skipped.
   */
  const followClaim = (picks: { index: number; attempt: number }[], claimed: ClaimedTask[], firstIndex: number) => {
    const key = (task: { index: number; attempt: number }) => `${task.index}:${task.attempt}`;
    const taken = new Set(claimed.map(key));
    const retries = picks.filter((pick) => pick.attempt > 1);
    state.retryQueue = [
      ...retries.filter((pick) => !taken.has(key(pick))),
      ...state.retryQueue.filter((pick) => !taken.has(key(pick))),
    ];
    const firsts = claimed.filter((task) => task.attempt === 1).map((task) => task.index + 1);
    state.nextIndex = Math.max(firstIndex, ...firsts);
  };

  /** Counts a task's end and queues its outcome for the store; a failed one may be tried again. */
  const ended = (
    task: { index: number; sessionId: string; attempt: number },
    end: BatchTaskEnd,
    changes?: BatchTaskOutcome['changes'],
  ) => {
    const outcome = { index: task.index, sessionId: task.sessionId, attempts: task.attempt };
    if (end.status === 'completed') {
      state.done++;
      state.tokens = addTokens(state.tokens, end.tokens);
      state.unwritten.push({ ...outcome, status: 'completed', tokens: end.tokens, ...(changes ? { changes } : {}) });
      return;
    }
    // A spent budget is not a failure a retry mends; the batch's own one stops it starting tasks.
    const overBudget = end.budgetExceeded === true;
    if (overBudget && end.error.includes(`batch ${input.batchId}`)) state.budgetReached = end.error;
    if (state.cancelRequested && end.cancelled) {
      state.cancelled++;
      state.unwritten.push({ ...outcome, status: 'cancelled', error: end.error });
    } else if (task.attempt <= input.retries && !state.cancelRequested && !overBudget) {
      state.retryQueue.push({ index: task.index, attempt: task.attempt + 1 });
      state.unwritten.push({ ...outcome, status: 'pending', error: end.error });
    } else {
      state.failed++;
      state.unwritten.push({ ...outcome, status: 'failed', error: end.error });
    }
  };

  const handedOver = () =>
    [...state.running].flatMap(([index, task]) =>
      task.handedOver && task.phase === 'running' ? [{ index, sessionId: task.sessionId, runId: task.runId! }] : [],
    );
  /** A handed-over task's end, reported once; an isolated task's changes are read first, as for the others. */
  const handedOverEnded = (index: number, end: BatchTaskEnd) => {
    const task = state.running.get(index);
    if (!task?.handedOver || task.phase !== 'running') return;
    const done = () => {
      state.running.delete(index);
      show();
    };
    if (!input.isolate || end.status !== 'completed') {
      ended({ index, ...task }, end);
      return done();
    }
    task.phase = 'finishing';
    void copies
      .finishTaskCopy({ batchId: input.batchId, index })
      .then(
        (changes) => ended({ index, ...task }, end, changes),
        (error: unknown) => ended({ index, ...task }, failedEnd(error, isCancellation(error))),
      )
      .finally(done);
  };
  const watcher = new CancellationScope();
  if (state.running.size > 0) {
    void watcher
      .run(() => watchHandedOver(handedOver, handedOverEnded))
      .catch((error: unknown) => {
        if (!isCancellation(error)) throw error;
      });
  }
  const settled = () => [...state.running.values()].every((task) => task.phase === 'running');

  const start = async () => {
    state.claiming = true;
    const room = Math.min(state.concurrency - state.running.size, CLAIM_PAGE);
    const firstIndex = state.nextIndex;
    const picks = state.retryQueue.splice(0, room);
    while (picks.length < room && state.nextIndex < input.total) picks.push({ index: state.nextIndex++, attempt: 1 });
    const claimed = await store.claimBatchTasks({ batchId: input.batchId, tasks: picks });
    followClaim(picks, claimed, firstIndex);
    for (const task of claimed) {
      const scope = new CancellationScope();
      const running: RunningTask = { scope, attempt: task.attempt, sessionId: task.sessionId, phase: 'starting' };
      state.running.set(task.index, running);
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
      void scope
        .run(async () => {
          const copy = input.isolate
            ? await copies.prepareTaskCopy({ batchId: input.batchId, index: task.index })
            : undefined;
          const handle = await startChild<(input: SessionRunInput) => Promise<SessionRunResult>>(
            SESSION_WORKFLOW_TYPE,
            {
              workflowId: task.sessionId,
              args: [copy ? { ...child, directory: copy.directory } : child],
              cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
              // Handed over, a task outlives the run that started it; the batch cancels it by id.
              parentClosePolicy: ParentClosePolicy.ABANDON,
              staticSummary: `${task.agent ?? 'batch'} · ${escapeMarkdownInline(task.description)}`,
              ...(input.webUrl
                ? { staticDetails: webLinkDetails(sessionPageUrl(input.webUrl, task.sessionId)).trim() }
                : {}),
              ...withSearchAttributes(input.searchAttributes, [
                ...(task.agent ? [{ key: AgentAttribute, value: task.agent }] : []),
                { key: RootSessionAttribute, value: task.sessionId },
              ]),
              priority: batchTaskPriority(input.batchId),
            },
          );
          running.runId = handle.firstExecutionRunId;
          running.phase = 'running';
          const result = await handle.result();
          running.phase = 'finishing';
          const changes = copy ? await copies.finishTaskCopy({ batchId: input.batchId, index: task.index }) : undefined;
          return { result, changes };
        })
        .then(
          ({ result, changes }) => ended(task, { status: 'completed', tokens: result.tokens }, changes),
          (error: unknown) => ended(task, failedEnd(error, isCancellation(error))),
        )
        .finally(() => {
          state.running.delete(task.index);
          show();
        });
    }
    state.claiming = false;
    show();
  };

  show();
  let draining = false;
  let written = `running:${state.concurrency}`;
  const statusKey = () => `${status()}:${state.concurrency}`;
  try {
    for (;;) {
      await condition(
        () =>
          state.cancelRequested ||
          statusKey() !== written ||
          state.unwritten.length >= FLUSH_EVERY ||
          (state.running.size === 0 &&
            (state.unwritten.length > 0 || waiting() === 0 || draining || state.budgetReached !== undefined)) ||
          (draining && settled()) ||
          (!draining && canStart()),
      );
      if (state.cancelRequested) break;
      if (statusKey() !== written) {
        written = statusKey();
        await store.setBatchStatus({ batchId: input.batchId, status: status(), concurrency: state.concurrency });
      }
      if (state.unwritten.length >= FLUSH_EVERY || state.running.size === 0) await flush();
      if ((waiting() === 0 || state.budgetReached) && state.running.size === 0) break;
      // Stop starting tasks a little before Temporal's suggestion, so the run still ends under its thresholds.
      const info = workflowInfo();
      draining ||=
        info.continueAsNewSuggested ||
        info.historyLength > (input.continueAtEvents ?? DRAIN_AT_EVENTS) ||
        info.historySize > DRAIN_AT_BYTES;
      if (draining && settled()) {
        await flush();
        // The next run takes over a full window: fill it once more (again if tasks end meanwhile).
        for (let fills = 0; fills < 3 && canStart(); fills++) {
          await start();
          await condition(settled);
        }
        await condition(allHandlersFinished);
        // A cancel that came in meanwhile is this run's to carry out.
        if (!state.cancelRequested) {
          watcher.cancel();
          await continueAsNew<typeof batchWorkflow>({ ...input, carried: carriedState(state) });
        }
      }
      if (!draining && canStart()) await start();
    }

    if (state.cancelRequested || state.budgetReached) {
      await condition(() => state.running.size === 0);
      const unstarted = state.retryQueue.map((task) => task.index);
      state.cancelled += waiting();
      await store.cancelBatchTasks({
        batchId: input.batchId,
        indexes: unstarted,
        from: state.nextIndex,
        total: input.total,
      });
      state.retryQueue = [];
      state.nextIndex = input.total;
    }
  } catch (error) {
    // The batch's run itself is cancelled (its parent session was, say): its tasks outlive it unless told.
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() =>
        Promise.all([...state.running.values()].map((task) => cancelTask(task.sessionId))),
      );
    }
    throw error;
  }
  await flush();
  const final: BatchStatus = state.cancelRequested || state.budgetReached ? 'cancelled' : 'completed';
  await store.setBatchStatus({ batchId: input.batchId, status: final, concurrency: state.concurrency });
  await condition(allHandlersFinished);
  const result = progress(final);
  setCurrentDetails(
    `**${final}** · ${result.done} done · ${result.failed} failed · ${result.cancelled} cancelled of ${result.total}` +
      (state.budgetReached ? `\n\n${state.budgetReached}` : ''),
  );
  return result;

  function carriedState(s: typeof state): BatchCarried {
    return {
      nextIndex: s.nextIndex,
      retryQueue: s.retryQueue,
      done: s.done,
      failed: s.failed,
      cancelled: s.cancelled,
      tokens: s.tokens,
      concurrency: s.concurrency,
      paused: s.paused,
      started: s.started,
      ...(s.budgetReached ? { budgetReached: s.budgetReached } : {}),
      ...(s.running.size > 0
        ? {
            running: [...s.running].map(([index, task]) => ({
              index,
              attempt: task.attempt,
              sessionId: task.sessionId,
              runId: task.runId!,
            })),
          }
        : {}),
      ...(s.unwritten.length > 0 ? { unwritten: [...s.unwritten] } : {}),
    };
  }
}
