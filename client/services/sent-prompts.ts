import type { LoomConfig } from '../../core/config/config.js';
import type { PromptRecords } from '../../activities/store/prompts.js';
import { newId } from '../../core/records/ids.js';
import { DEFAULT_MAX_PROMPT_BYTES } from '../../core/records/prompt.js';
import { formatBytes } from '../render/quantities.js';
import { InputError } from '../input-error.js';

/**
 * The largest prompt a project accepts: `LOOM_MAX_PROMPT_BYTES`, else `max_prompt_bytes` of its
 * configuration (as a person's run would read it: see `loadPersonProject`), else 8 MiB.
 */
export function promptLimit(env: NodeJS.ProcessEnv, config: LoomConfig): number {
  const fromEnv = Number(env.LOOM_MAX_PROMPT_BYTES);
  if (env.LOOM_MAX_PROMPT_BYTES && !(Number.isInteger(fromEnv) && fromEnv > 0)) {
    throw new InputError(`LOOM_MAX_PROMPT_BYTES must be a whole number of bytes, got "${env.LOOM_MAX_PROMPT_BYTES}".`);
  }
  if (fromEnv > 0) return fromEnv;
  return config.max_prompt_bytes ?? DEFAULT_MAX_PROMPT_BYTES;
}

/** Why a prompt is refused, or undefined when its size is fine. */
export function promptSizeProblem(text: string, limit: number): string | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= limit) return undefined;
  return `the prompt is ${formatBytes(bytes)}, over the limit of ${formatBytes(limit)} (raise max_prompt_bytes in the config, or LOOM_MAX_PROMPT_BYTES)`;
}

/** Refuses a prompt over the limit up front, before anything is started. */
export function checkPromptSize(text: string, limit: number, target?: string): void {
  const problem = promptSizeProblem(text, limit);
  if (problem) throw new InputError(`Prompt${target ? ` for ${target}` : ''} refused: ${problem}.`);
}

/**
 * Stores a prompt for a session and returns its id: the run is told the id, never the text, so a
 * prompt of any accepted size starts a run (Temporal refuses payloads over 2 MiB).
 */
export async function savePrompt(
  store: PromptRecords,
  sessionId: string,
  text: string,
  limit: number,
): Promise<string> {
  checkPromptSize(text, limit, `session ${sessionId}`);
  const now = Date.now();
  const id = newId('prm', now, Math.random);
  await store.savePrompt({ id, sessionID: sessionId, text, time: { created: now } });
  return id;
}
