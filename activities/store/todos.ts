import { z } from 'zod';
import { Todo } from '../../core/records/todo.js';

export interface TodoRecords {
  saveTodos(sessionId: string, todos: Todo[]): Promise<void>;
  todos(sessionId: string): Promise<Todo[]>;
}

/** The todo list of each session as a dialect stores it; what it is given is already validated. */
export interface TodoRows {
  save(sessionId: string, todos: Todo[]): Promise<void>;
  /** Undefined: the session never wrote a list. */
  get(sessionId: string): Promise<Todo[] | undefined>;
}

export const TodoList = z.array(Todo);

export function todoRecords(rows: TodoRows): TodoRecords {
  return {
    saveTodos: async (sessionId, todos) => rows.save(sessionId, TodoList.parse(todos)),
    todos: async (sessionId) => (await rows.get(sessionId)) ?? [],
  };
}
