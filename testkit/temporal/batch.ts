import type { BatchTaskInput } from '../../core/batch/batch.js';
import type { ModelRetry } from '../../core/runs/run.js';
import { startBatch } from '../../client/services/batches.js';
import type { LoomTestEnv } from '../loom/loom-env.js';
import { SCRIPTED_MODEL } from '../loom/loom-env.js';

/** Starts a batch on the test env's task queue, as `loom batch run` would. */
export function runBatch(
  env: LoomTestEnv,
  tasks: BatchTaskInput[],
  options: {
    concurrency?: number;
    retries?: number;
    agent?: string;
    modelRetry?: ModelRetry;
    isolate?: boolean;
    /** Milliseconds each task's run may take (`--task-timeout`). */
    taskTimeout?: number;
    /** The batch's directory (default: the project). */
    directory?: string;
    /** `provider/model` for every task (default: the scripted model). */
    model?: string;
    /** Events of history after which a run of the batch continues as new. */
    continueAtEvents?: number;
  } = {},
) {
  return startBatch(env.client, env.store, {
    tasks,
    source: 'tasks.jsonl',
    sourceBytes: JSON.stringify(tasks).length,
    directory: options.directory ?? env.project,
    agent: options.agent ?? 'build',
    model: options.model ?? SCRIPTED_MODEL,
    concurrency: options.concurrency ?? 5,
    retries: options.retries ?? 0,
    taskQueue: env.taskQueue,
    modelRetry: options.modelRetry ?? { maximumAttempts: 1, initialIntervalMs: 100, maximumIntervalMs: 100 },
    isolate: options.isolate,
    taskTimeout: options.taskTimeout,
    continueAtEvents: options.continueAtEvents,
  });
}

export const numberedTasks = (count: number, prompt = (i: number) => `Task ${i}: say done.`): BatchTaskInput[] =>
  Array.from({ length: count }, (_, i) => ({ description: `Task ${i}`, prompt: prompt(i) }));
