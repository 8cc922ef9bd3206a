import { z } from 'zod';
import { Todo } from '../../core/todo.js';

export interface TodoRecords {
  saveTodos(sessionID: string, todos: Todo[]): Promise<void>;
  todos(sessionID: string): Promise<Todo[]>;
}

/** The todo list of each session as a dialect stores it; what it is given is already validated. */
export interface TodoRows {
  save(sessionID: string, todos: Todo[]): Promise<void>;
  /** Undefined: the session never wrote a list. */
  get(sessionID: string): Promise<Todo[] | undefined>;
}

export const TodoList = z.array(Todo);

export function todoRecords(rows: TodoRows): TodoRecords {
  return {
    saveTodos: async (sessionID, todos) => rows.save(sessionID, TodoList.parse(todos)),
    todos: async (sessionID) => (await rows.get(sessionID)) ?? [],
  };
}
