import { z } from 'zod';
import { Tokens } from '../records/message.js';
import { isInsidePath } from '../text/path.js';

/** A task's folder: relative to the batch's directory and, written out, inside it. */
const TaskDirectory = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    if (!isInsidePath('.', value)) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a folder inside the batch's directory, written relative to it (not ${JSON.stringify(value)})`,
      });
    }
  });

/** One line of a batch file: a task for a subagent session. */
export const BatchTaskInput = z.strictObject({
  description: z.string().min(1),
  prompt: z.string().min(1),
  agent: z.string().optional(),
  model: z.string().optional(),
  /** Continue this existing session instead of starting a new one. */
  session_id: z.string().optional(),
  /** The folder this task's session works in, relative to the batch's directory (default: that directory). */
  directory: TaskDirectory.optional(),
  /** Milliseconds this task's run may take before it is cancelled and fails (default: the batch's `taskTimeout`). */
  timeout: z.number().int().positive().optional(),
});
export type BatchTaskInput = z.infer<typeof BatchTaskInput>;

/**
 * A batch whose tasks each work in a copy of the project (`loom batch run --isolate`). The run
 * fills in the snapshot and the folders when it starts; `loom batch apply` records what it applied.
 */
export const BatchIsolation = z.object({
  /** The snapshot (a tree hash) of the project taken when the batch started: every copy's files. */
  base: z.string().optional(),
  /** The folder the snapshot covers: the git repository around the batch's directory, else that directory. */
  root: z.string().optional(),
  /** Where the copies and their snapshots are, on the batch's host (`<data>/isolated/<batch>`). */
  folder: z.string().optional(),
  /** The tasks `loom batch apply` applied, in the order it applied them. */
  applied: z.array(z.number()).optional(),
  /** When the copies were deleted (applied, discarded or collected). */
  removed: z.number().optional(),
});
export type BatchIsolation = z.infer<typeof BatchIsolation>;

export const BatchStatus = z.enum(['running', 'paused', 'completed', 'cancelled']);
export type BatchStatus = z.infer<typeof BatchStatus>;

/** A batch as the store keeps it; its tasks are rows of their own. */
export const BatchRecord = z.object({
  id: z.string(),
  /** Where the tasks came from (a file name, or `batch tool`). */
  source: z.string(),
  sourceBytes: z.number(),
  total: z.number(),
  directory: z.string(),
  /** The host id of the machine that holds the directory. */
  host: z.string().optional(),
  agent: z.string(),
  model: z.string().optional(),
  concurrency: z.number().int().positive(),
  retries: z.number().int().min(0),
  /** Milliseconds each task's run may take, for tasks that set no `timeout` (`--task-timeout`). */
  taskTimeout: z.number().int().positive().optional(),
  /** The session that started it with the `batch` tool, if any. */
  parentSessionID: z.string().optional(),
  /** Present when each task works in a copy of the project of its own. */
  isolation: BatchIsolation.optional(),
  status: BatchStatus,
  time: z.object({ created: z.number(), updated: z.number() }),
});
export type BatchRecord = z.infer<typeof BatchRecord>;

export const TaskStatus = z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']);
export type TaskStatus = z.infer<typeof TaskStatus>;

/** A file a task changed in its copy, by its path from the snapshot's root. */
export const FileChange = z.object({ path: z.string(), status: z.enum(['added', 'modified', 'deleted']) });
export type FileChange = z.infer<typeof FileChange>;

/** What an isolated task changed in its copy, compared with the batch's snapshot. */
export const TaskChanges = z.object({
  /** The snapshot of the copy when the task ended. */
  tree: z.string(),
  /** How many files differ from the batch's snapshot. */
  count: z.number(),
  /** Those files; written by the host (the run's history carries only the tree and the count). */
  files: z.array(FileChange).optional(),
});
export type TaskChanges = z.infer<typeof TaskChanges>;

/** What became of one task. */
export const BatchTaskOutcome = z.object({
  index: z.number(),
  status: TaskStatus,
  /** The session of the latest attempt. */
  sessionId: z.string().optional(),
  attempts: z.number(),
  text: z.string().optional(),
  tokens: Tokens.optional(),
  error: z.string().optional(),
  /** An isolated batch's completed task: what it changed in its copy. */
  changes: TaskChanges.optional(),
});
export type BatchTaskOutcome = z.infer<typeof BatchTaskOutcome>;

/** A batch's counts, as its run reports them while it works. */
export interface BatchProgress {
  batchId: string;
  status: BatchStatus;
  total: number;
  done: number;
  failed: number;
  cancelled: number;
  running: number;
  pending: number;
  concurrency: number;
  tokens: Tokens;
  /** When the batch started (ms), for rates. */
  started: number;
}
