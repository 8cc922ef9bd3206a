import { TodoList, type TodoRows } from '../todos.js';
import type { SqliteConnection } from './connection.js';
import { readOne } from './documents.js';

export function sqliteTodoRows({ db }: SqliteConnection): TodoRows {
  const statements = {
    save: db.prepare(
      'INSERT INTO todo (session_id, data) VALUES (?, ?) ON CONFLICT(session_id) DO UPDATE SET data = excluded.data',
    ),
    get: db.prepare('SELECT data FROM todo WHERE session_id = ?'),
  };
  return {
    async save(sessionId, todos) {
      statements.save.run(sessionId, JSON.stringify(todos));
    },
    get: async (sessionId) => readOne(statements.get, [sessionId], TodoList),
  };
}
