import { Context } from '@temporalio/activity';
import { CancelledFailure, WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { failedEnd, type BatchTaskEnd } from '../../core/batch/batch-task-end.js';
import type { SessionRunResult } from '../../core/runs/run.js';

/** A batch task's session run that an earlier run of the batch started, still running when it handed over. */
export interface HandedOverTask {
  index: number;
  sessionId: string;
  /** The session's run the task started (its ends are followed through its continue-as-new runs). */
  runId: string;
}

const HEARTBEAT_EVERY_MS = 5_000;
/** Tasks that end within this much of the first travel back with it: one workflow task for several. */
const GATHER_MS = 100;

/**
 * The next run of a batch waits here for the tasks an earlier run left running (it cannot wait on
 * another run's children). Returns as soon as one or more have ended, with how each ended.
 */
export function createBatchTaskEndActivities() {
  async function awaitBatchTaskEnds(input: { tasks: HandedOverTask[] }): Promise<({ index: number } & BatchTaskEnd)[]> {
    if (input.tasks.length === 0) return [];
    const context = Context.current();
    const { client } = context;
    const ends = new Map<number, BatchTaskEnd>();
    let failure: unknown;
    // Stops the waits still open when this returns, as well as when the batch's run cancels it.
    const stop = new AbortController();
    const cancelled = () => stop.abort();
    context.cancellationSignal.addEventListener('abort', cancelled);
    const heartbeat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      await client.withAbortSignal(stop.signal, async () => {
        const waits = input.tasks.map((task) =>
          endOf(client, task).then(
            (end) => void ends.set(task.index, end),
            (error: unknown) => void (failure ??= error),
          ),
        );
        await Promise.race(waits);
        await Promise.race([Promise.all(waits), new Promise((resolve) => setTimeout(resolve, GATHER_MS))]);
      });
    } finally {
      clearInterval(heartbeat);
      context.cancellationSignal.removeEventListener('abort', cancelled);
      stop.abort();
    }
    if (ends.size === 0) throw failure;
    return [...ends].map(([index, end]) => ({ index, ...end }));
  }

  return { awaitBatchTaskEnds };
}

async function endOf(client: Client, task: HandedOverTask): Promise<BatchTaskEnd> {
  try {
    const result = (await client.workflow.getHandle(task.sessionId, task.runId).result()) as SessionRunResult;
    return { status: 'completed', tokens: result.tokens };
  } catch (error) {
    if (error instanceof WorkflowFailedError) return failedEnd(error, error.cause instanceof CancelledFailure);
    // Gone from Temporal (its retention passed): the batch must not wait on it for ever.
    if (error instanceof WorkflowNotFoundError) {
      return failedEnd(new Error(`The run ${task.runId} of session ${task.sessionId} is gone from Temporal`), false);
    }
    throw error;
  }
}
