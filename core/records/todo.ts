import { z } from 'zod';

export const TodoStatus = z.enum(['pending', 'in_progress', 'completed', 'cancelled']);
export const TodoPriority = z.enum(['high', 'medium', 'low']);

/** One item of a session's todo list. */
export const Todo = z.object({
  id: z.string(),
  content: z.string().min(1),
  status: TodoStatus,
  priority: TodoPriority,
});
export type Todo = z.infer<typeof Todo>;
