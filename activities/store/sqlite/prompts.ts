import type { PromptRow, PromptRows } from '../prompts.js';
import type { SqliteConnection } from './connection.js';

export function sqlitePromptRows({ db }: SqliteConnection): PromptRows {
  const statements = {
    upsert: db.prepare(
      `INSERT INTO prompt (id, session_id, time_created, text) VALUES (@id, @session, @created, @text)
       ON CONFLICT(id) DO UPDATE SET session_id = excluded.session_id, text = excluded.text`,
    ),
    get: db.prepare('SELECT id, session_id, time_created, text FROM prompt WHERE id = ?'),
  };
  return {
    async upsert(prompt) {
      statements.upsert.run({
        id: prompt.id,
        session: prompt.sessionID ?? null,
        created: prompt.time.created,
        text: prompt.text,
      });
    },
    get: async (id) => statements.get.get(id) as PromptRow | undefined,
  };
}
