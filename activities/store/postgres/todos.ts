import { TodoList, type TodoRows } from '../todos.js';
import { one } from './documents.js';
import type { PostgresTransactions } from './transaction.js';

export function postgresTodoRows({ pool }: PostgresTransactions): TodoRows {
  return {
    async save(sessionId, todos) {
      await pool.query(
        'INSERT INTO todo (session_id, data) VALUES ($1, $2::jsonb) ON CONFLICT (session_id) DO UPDATE SET data = excluded.data',
        [sessionId, JSON.stringify(todos)],
      );
    },
    get: (sessionId) => one(pool, 'SELECT data FROM todo WHERE session_id = $1', [sessionId], TodoList),
  };
}
