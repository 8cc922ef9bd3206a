import { z } from 'zod';
import { derivedId } from './ids.js';

/**
 * A prompt as the store keeps it. Prompts never travel through workflow history: whoever sends
 * one (the CLI, a task call, a batch) stores it first, and the run gets its id.
 */
export const StoredPrompt = z.object({
  id: z.string(),
  /** The session it was sent to (absent for prompts shared by several, such as a batch task's). */
  sessionID: z.string().optional(),
  text: z.string(),
  time: z.object({ created: z.number() }),
});
export type StoredPrompt = z.infer<typeof StoredPrompt>;

/** A prompt waiting for a run's next step: its id in the store. */
export interface QueuedPrompt {
  promptId: string;
  /** Loom's own prompt (a background subagent's outcome): written as it is, never a command. */
  synthetic?: boolean;
}

/** The largest prompt Loom accepts unless configured otherwise (`max_prompt_bytes`). */
export const DEFAULT_MAX_PROMPT_BYTES = 8 * 1024 * 1024;

/** What the Temporal UI may show of a prompt or an answer: history holds previews, not content. */
export const PREVIEW_LIMIT = 1000;

/** The start of a text, cut to `limit` characters with an ellipsis when longer. */
export function preview(text: string, limit = PREVIEW_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/** A text on one line (whitespace runs become one space), cut to `limit` characters: for labels and summaries. */
export function previewLine(text: string, limit = 80): string {
  return preview(text.replace(/\s+/g, ' ').trim(), limit);
}

/** The id under which a `/command` prompt's expansion is stored (its user message names this one). */
export function expandedPromptId(promptId: string): string {
  return derivedId('prm', promptId, 1);
}
