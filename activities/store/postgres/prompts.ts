import type { PromptRow, PromptRows } from '../prompts.js';
import type { PostgresTransactions } from './transaction.js';

export function postgresPromptRows({ pool }: PostgresTransactions): PromptRows {
  return {
    async upsert(prompt) {
      await pool.query(
        `INSERT INTO prompt (id, session_id, time_created, text) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, text = excluded.text`,
        [prompt.id, prompt.sessionID ?? null, prompt.time.created, prompt.text],
      );
    },
    async get(id) {
      const { rows } = await pool.query<PromptRow>(
        'SELECT id, session_id, time_created, text FROM prompt WHERE id = $1',
        [id],
      );
      return rows[0];
    },
  };
}
