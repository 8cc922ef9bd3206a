import { bufferOf, isOnFirstRow, isOnLastRow, type PromptBuffer } from './prompt-buffer.js';

/**
 * The past prompts ↑ and ↓ step through, and the draft they keep. A value, like the buffer: each
 * step returns a new history with the buffer to show. Leaving the draft for a past prompt saves
 * the draft as it was (text and cursor); coming back down past the newest prompt restores it.
 * Changes made to a recalled prompt are dropped when stepping on, as in a shell.
 */
export interface PromptHistory {
  /** Past prompts, oldest first, blanks left out and repeats in a row kept once. */
  readonly entries: readonly string[];
  /** The recalled entry's index; `entries.length` while the draft is shown. */
  readonly position: number;
  /** The draft, saved when the first ↑ left it. */
  readonly draft?: PromptBuffer;
}

/** A step through history: the history after it and the buffer to show. */
export interface HistoryStep {
  readonly history: PromptHistory;
  readonly buffer: PromptBuffer;
}

/** A history of `prompts` (oldest first, such as the session's user messages), showing the draft. */
export function promptHistory(prompts: readonly string[]): PromptHistory {
  const entries: string[] = [];
  for (const prompt of prompts) if (prompt.trim() && prompt !== entries.at(-1)) entries.push(prompt);
  return { entries, position: entries.length };
}

/**
 * ↑ into history: the prompt before the one shown, with the cursor at its start (so another ↑
 * goes on back), or undefined when there is none older.
 */
export function recallPrevious(history: PromptHistory, current: PromptBuffer): HistoryStep | undefined {
  if (history.position === 0) return undefined;
  const draft = history.position === history.entries.length ? current : history.draft;
  const position = history.position - 1;
  return { history: { ...history, position, draft }, buffer: bufferOf(history.entries[position], 0) };
}

/**
 * ↓ through history: the next newer prompt, with the cursor at its end (so another ↓ goes on),
 * or after the newest the draft as it was left; undefined while the draft is shown.
 */
export function recallNext(history: PromptHistory): HistoryStep | undefined {
  if (history.position >= history.entries.length) return undefined;
  const position = history.position + 1;
  if (position === history.entries.length) {
    return { history: { entries: history.entries, position }, buffer: history.draft ?? bufferOf('') };
  }
  return { history: { ...history, position }, buffer: bufferOf(history.entries[position]) };
}

/** The history after `prompt` was submitted: it is the newest entry, and an empty draft is shown. */
export function rememberPrompt(history: PromptHistory, prompt: string): PromptHistory {
  return promptHistory([...history.entries, prompt]);
}

/** Whether the history shows a past prompt rather than the draft. */
export function isRecalling(history: PromptHistory): boolean {
  return history.position < history.entries.length;
}

/**
 * Whether ↑ should step into history rather than move the cursor: it is on the prompt's first
 * row (`width`: the prompt's width in cells, so a wrapped line is walked row by row first).
 */
export function upRecallsHistory(buffer: PromptBuffer, width = Infinity): boolean {
  return isOnFirstRow(buffer, width);
}

/** Whether ↓ should step through history rather than move the cursor: a past prompt is shown and the cursor is on its last row. */
export function downRecallsHistory(history: PromptHistory, buffer: PromptBuffer, width = Infinity): boolean {
  return isRecalling(history) && isOnLastRow(buffer, width);
}
