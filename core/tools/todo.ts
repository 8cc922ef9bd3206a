import { z } from 'zod';
import { TodoPriority, TodoStatus } from '../records/todo.js';
import { defineTool } from '../tool-call/spec.js';

export const todowrite = defineTool({
  name: 'todowrite',
  description: `Write the session's todo list: the whole list, replacing the previous one.

Use it for work of three or more steps, to plan and to show progress: add the steps, mark one in_progress before you start it, mark it completed as soon as it is done (not in batches), and cancel steps that no longer apply. Skip it for a single, simple request.`,
  parameters: () =>
    z.object({
      todos: z
        .array(
          z.object({
            content: z.string().min(1).describe('What to do, briefly'),
            status: TodoStatus.describe('pending, in_progress, completed or cancelled'),
            priority: TodoPriority.default('medium').describe('high, medium or low'),
            id: z.string().optional().describe('A stable id (assigned when omitted)'),
          }),
        )
        .describe('The updated todo list'),
    }),
  effect: 'idempotent',
  local: true,
  storeOnly: true,
  summarize: (input) => `${input.todos.length} items`,
});

export const todoread = defineTool({
  name: 'todoread',
  description: "Read the session's todo list, to see what is done and what is left.",
  parameters: () => z.object({}),
  effect: 'read-only',
  local: true,
  storeOnly: true,
  summarize: () => 'todo list',
});
