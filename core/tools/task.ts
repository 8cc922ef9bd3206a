import { z } from 'zod';
import { evaluate, type Ruleset } from '../rules/permission.js';
import { defineTool } from '../tool-call/spec.js';

/** What the model reads about `task`; `{agents}` becomes one line per agent it may delegate to. */
const TASK_DESCRIPTION = `Start a subagent to work on a task on its own, in a session of its own.

Available agents:
{agents}

When to delegate:
- Work of several steps that is self-contained: researching a question across the codebase, making a change in one area, reviewing a file, running a slash command the user gave.
- Not for reading a file you already know or finding one class or a few files: use read, glob and grep yourself.

How:
- Launch several agents at once when their work is independent: several task calls in ONE message run at the same time.
- The agent starts without your context. Write a complete prompt: what to do, what you already know, whether to change code or only report, and exactly what to return.
- The agent's answer comes back to you, not to the user: summarise what matters for the user yourself.
- The result ends with <task_metadata> holding the session_id. Pass it as session_id to continue the same subagent with its earlier context.
- With background: true the call returns at once and the subagent works on while you go on; task_status with its session_id says how it is doing and, once it is done, gives its answer (wait: true waits for it).
- Trust the agent's findings; check them only when something looks wrong.`;

export const UNDESCRIBED_AGENT = 'This subagent should only be called manually by the user.';

/**
 * `template` with `{agents}` replaced by the agents a caller may delegate to, one line each: those
 * not `primary` that its rules do not deny.
 */
export function describeTaskTool(
  agents: { name: string; description?: string; mode: string }[],
  callerRules: Ruleset,
  template = TASK_DESCRIPTION,
): string {
  const lines = agents
    .filter((agent) => agent.mode !== 'primary' && evaluate('task', agent.name, callerRules).action !== 'deny')
    .map((agent) => `- ${agent.name}: ${agent.description ?? UNDESCRIBED_AGENT}`);
  return template.replace('{agents}', lines.join('\n') || '(none)');
}

export const task = defineTool({
  name: 'task',
  description: TASK_DESCRIPTION,
  parameters: () =>
    z
      .object({
        description: z.string().describe('A short (3-5 words) description of the task'),
        prompt: z.string().describe('The task for the agent to perform'),
        subagent_type: z.string().describe('The type of specialized agent to use for this task'),
        session_id: z.string().optional().describe('Existing task session to continue'),
        task_id: z.string().optional().describe('Alias of session_id'),
        command: z.string().optional().describe('The command that triggered this task'),
        background: z
          .boolean()
          .optional()
          .describe('Run the subagent in the background: the call returns at once with its session_id'),
      })
      .transform(({ task_id, ...input }) => ({ ...input, session_id: input.session_id ?? task_id })),
  effect: 'mutating',
  summarize: (input) => `${input.subagent_type} · ${input.description}`,
  permissions: (input) => [{ permission: 'task', patterns: [input.subagent_type], always: ['*'] }],
});
