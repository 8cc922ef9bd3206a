import type { StoredPrompt } from '../../core/records/prompt.js';

export interface PromptRecords {
  /** Stores a prompt before any run is told of it (an upsert: sending it again changes nothing). */
  savePrompt(prompt: StoredPrompt): Promise<void>;
  getPrompt(id: string): Promise<StoredPrompt | undefined>;
}

/** A prompt's row: PostgreSQL's driver gives a BIGINT as text. */
export type PromptRow = { id: string; session_id: string | null; time_created: number | string; text: string };

/** Prompt rows as a dialect stores them. */
export interface PromptRows {
  upsert(prompt: StoredPrompt): Promise<void>;
  get(id: string): Promise<PromptRow | undefined>;
}

export function promptRecords(rows: PromptRows): PromptRecords {
  return {
    savePrompt: async (prompt) => rows.upsert(prompt),
    async getPrompt(id) {
      const row = await rows.get(id);
      return (
        row && {
          id: row.id,
          ...(row.session_id ? { sessionID: row.session_id } : {}),
          text: row.text,
          time: { created: Number(row.time_created) },
        }
      );
    },
  };
}
