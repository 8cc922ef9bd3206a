import { z } from 'zod';
import { defineTool } from '../tool-call/spec.js';

export const batch = defineTool({
  name: 'batch',
  description: `Run many similar, independent tasks as one durable batch of subagent sessions: for example one review per file, or one triage per issue.

- Give one task per item, each with a short description and a complete prompt (the subagent starts without your context).
- Tasks run at most \`concurrency\` at a time; a failed task is tried again up to \`retries\` times; the batch survives restarts.
- Without background, you get a summary of every task's outcome when the batch ends. With background: true you get the batch id at once, and the user can follow it with \`loom batch status\`.
- For a handful of tasks, use the task tool instead.`,
  parameters: () =>
    z.object({
      tasks: z
        .array(
          z.object({
            description: z.string().min(1).describe('A short (3-5 words) description of the task'),
            prompt: z.string().min(1).describe('The task for the subagent'),
            agent: z.string().optional().describe('The agent for this task (default: the batch agent)'),
          }),
        )
        .min(1)
        .max(10_000)
        .describe('The tasks, one per item'),
      agent: z.string().optional().describe('The agent for tasks that name none (default: general)'),
      concurrency: z.number().int().min(1).max(100).optional().describe('Tasks running at once (default 8)'),
      retries: z.number().int().min(0).max(5).optional().describe('Times a failed task is tried again (default 1)'),
      background: z.boolean().optional().describe('Return the batch id at once instead of waiting for the end'),
    }),
  effect: 'mutating',
  summarize: (input) => `${input.tasks.length} tasks${input.background ? ' in the background' : ''}`,
});
