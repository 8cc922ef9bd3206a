import type { z } from 'zod';
import type { Todo } from '../../core/records/todo.js';
import type { todoread as todoreadSpec, todowrite as todowriteSpec } from '../../core/tools/todo.js';
import type { ToolHandler, ToolOutput } from './running/tool-handler.js';

export const todowrite: ToolHandler<z.infer<typeof todowriteSpec.parameters>> = async (input, context) => {
  const todos: Todo[] = input.todos.map((todo, index) => ({
    id: todo.id ?? String(index + 1),
    content: todo.content,
    status: todo.status,
    priority: todo.priority ?? 'medium',
  }));
  await context.store.saveTodos(context.sessionId, todos);
  return describe(todos);
};

export const todoread: ToolHandler<z.infer<typeof todoreadSpec.parameters>> = async (_input, context) =>
  describe(await context.store.todos(context.sessionId));

function describe(todos: Todo[]): ToolOutput {
  const open = todos.filter((todo) => todo.status === 'pending' || todo.status === 'in_progress').length;
  return { title: `${open} open of ${todos.length}`, output: JSON.stringify(todos, null, 2), metadata: { todos } };
}
