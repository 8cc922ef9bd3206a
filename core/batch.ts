import { z } from 'zod';
import { Tokens } from './message.js';
import { isInsidePath } from './path.js';

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
});
export type BatchTaskInput = z.infer<typeof BatchTaskInput>;

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
  /** The session that started it with the `batch` tool, if any. */
  parentSessionID: z.string().optional(),
  status: BatchStatus,
  time: z.object({ created: z.number(), updated: z.number() }),
});
export type BatchRecord = z.infer<typeof BatchRecord>;

export const TaskStatus = z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']);
export type TaskStatus = z.infer<typeof TaskStatus>;

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
