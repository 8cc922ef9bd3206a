import type { Tokens } from '../records/message.js';
import type { MessageWithParts } from '../records/message.js';
import type { ToolPart } from '../records/part.js';

/** A model's window, in tokens. `input` (when known) bounds the prompt alone. */
export interface ModelLimit {
  context: number;
  input?: number;
  output: number;
}

export interface CompactionSettings {
  /** Compact automatically when the context fills up (default true). */
  auto: boolean;
  /** Clear old tool outputs after each run (default true). */
  prune: boolean;
  /** Tokens kept free for the answer (default: min(20,000, the model's output limit)). */
  reserved?: number;
}

/** What the compaction request shows the model, as OpenCode does. */
export const COMPACTION_REQUEST_TEXT = 'What did we do so far?';
/** Sent after an automatic compaction when there is no user message to replay. */
export const CONTINUE_AFTER_COMPACTION =
  'Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.';
export const MEDIA_REMOVED_NOTE =
  'The previous request exceeded the model’s context, so attached media were removed from the conversation summary.';
/** How a pruned tool output reaches the model. */
export const CLEARED_TOOL_OUTPUT = '[Old tool result content cleared]';

/** Whether a step's usage fills the model's usable window (OpenCode's `isOverflow`). */
export function isOverflow(tokens: Tokens, limit: ModelLimit | undefined, settings: CompactionSettings): boolean {
  if (!settings.auto || !limit?.context) return false;
  const count = tokens.input + tokens.output + tokens.cache.read + tokens.cache.write;
  const maxOutput = Math.min(limit.output || 32_000, 32_000);
  const reserved = settings.reserved ?? Math.min(20_000, maxOutput);
  const usable = limit.input ? limit.input - reserved : limit.context - maxOutput;
  return count >= usable;
}

/** The history the model sees: from the last compaction whose summary finished without error. */
export function sinceLastCompaction(history: MessageWithParts[]): MessageWithParts[] {
  for (let index = history.length - 1; index >= 0; index--) {
    const { info, parts } = history[index];
    if (info.role !== 'user' || !parts.some((part) => part.type === 'compaction')) continue;
    const summary = history
      .slice(index + 1)
      .find((message) => message.info.role === 'assistant' && message.info.summary);
    if (summary && summary.info.role === 'assistant' && summary.info.finish && !summary.info.error)
      return history.slice(index);
  }
  return history;
}

const PROTECT_TOKENS = 40_000;
const MINIMUM_PRUNE_TOKENS = 20_000;
const RECENT_TURNS = 2;

/** A rough token count, as OpenCode estimates it: characters / 4. */
export const estimateTokens = (text: string) => Math.round(text.length / 4);

/**
 * The tool outputs to clear after a turn (OpenCode's prune): walking back from the newest, the two
 * most recent user turns and the latest 40,000 tokens of tool output are kept; older outputs are
 * cleared, but only when they come to more than 20,000 tokens. Nothing before a summary is touched,
 * nor anything already cleared.
 */
export function outputsToPrune(history: MessageWithParts[]): string[] {
  let turns = 0;
  let seen = 0;
  let marked = 0;
  const prune: string[] = [];
  walk: for (let index = history.length - 1; index >= 0; index--) {
    const { info, parts } = history[index];
    if (info.role === 'user') turns++;
    if (turns < RECENT_TURNS) continue;
    if (info.role === 'assistant' && info.summary) break;
    for (let p = parts.length - 1; p >= 0; p--) {
      const part = parts[p];
      if (part.type !== 'tool' || part.state.status !== 'completed' || part.tool === 'skill') continue;
      if (part.state.time.compacted) break walk;
      const estimate = estimateTokens(part.state.output);
      seen += estimate;
      if (seen > PROTECT_TOKENS) {
        prune.push(part.id);
        marked += estimate;
      }
    }
  }
  return marked > MINIMUM_PRUNE_TOKENS ? prune : [];
}

export function isCleared(part: ToolPart): boolean {
  return part.state.status === 'completed' && part.state.time.compacted !== undefined;
}
