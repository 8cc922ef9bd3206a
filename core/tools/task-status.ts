import { z } from 'zod';
import { defineTool } from '../tool-call/spec.js';

/** The longest `task_status` waits for a subagent, whatever `timeout_ms` says. */
export const TASK_STATUS_MAX_WAIT_MS = 300_000;
export const TASK_STATUS_DEFAULT_WAIT_MS = 60_000;

export const taskStatus = defineTool({
  name: 'task_status',
  description: `Report on a subagent's session of this session tree, by the session_id in a task result's <task_metadata>: running, completed, error or cancelled, and once it is done, its answer.

Use it for subagents started with background: true. With wait: true it waits until the subagent is done, or until timeout_ms passes (default ${TASK_STATUS_DEFAULT_WAIT_MS}, at most ${TASK_STATUS_MAX_WAIT_MS}), and then reports.`,
  parameters: () =>
    z.object({
      session_id: z.string().describe("The subagent's session_id"),
      wait: z.boolean().optional().describe('Wait until it is done (or timeout_ms passes)'),
      timeout_ms: z
        .number()
        .int()
        .min(0)
        .max(TASK_STATUS_MAX_WAIT_MS)
        .optional()
        .describe('How long to wait at most, in milliseconds'),
    }),
  effect: 'read-only',
  storeOnly: true,
  summarize: (input) => input.session_id,
  permissions: (input) => [{ permission: 'task_status', patterns: [input.session_id], always: ['*'] }],
});
