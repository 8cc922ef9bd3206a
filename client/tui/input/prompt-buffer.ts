import { clusterEnd, clusterStart, lineEndOf, lineStartOf, normalizeText } from './text-cells.js';
import { onFirstRow, onLastRow, rowAbove, rowBelow } from './vertical-motion.js';

/**
 * The prompt being typed: its text and where the cursor is. A value: every edit returns a new
 * buffer, so the component keeps it in state and history can hold one. Each edit copies the text
 * once (a paste of a megabyte costs one copy, not one per character).
 */
export interface PromptBuffer {
  readonly text: string;
  /** An offset into `text` (UTF-16 code units), always at a cluster boundary. */
  readonly cursor: number;
  /**
   * The column Up and Down aim for, kept while they move through shorter lines; set by `moveUp`
   * and `moveDown`, dropped by every other edit and move.
   */
  readonly goalColumn?: number;
}

/** A prompt with nothing typed. */
export const EMPTY_BUFFER: PromptBuffer = { text: '', cursor: 0 };

/** A buffer holding `text` (normalized as a paste would be), with the cursor at `cursor` or the end. */
export function bufferOf(text: string, cursor?: number): PromptBuffer {
  const normalized = normalizeText(text);
  return { text: normalized, cursor: Math.max(0, Math.min(cursor ?? normalized.length, normalized.length)) };
}

/** Types or pastes `text` at the cursor; `\r\n` and `\r` become line breaks, other control characters are dropped. */
export function insertText(buffer: PromptBuffer, text: string): PromptBuffer {
  const inserted = normalizeText(text);
  if (!inserted) return withoutGoal(buffer);
  const { text: current, cursor } = buffer;
  return { text: current.slice(0, cursor) + inserted + current.slice(cursor), cursor: cursor + inserted.length };
}

/** Starts a new line at the cursor. */
export function insertNewline(buffer: PromptBuffer): PromptBuffer {
  return insertText(buffer, '\n');
}

/** Backspace: deletes the character before the cursor (a whole emoji or accented letter). */
export function deleteBackward(buffer: PromptBuffer): PromptBuffer {
  return removeRange(buffer, clusterStart(buffer.text, buffer.cursor), buffer.cursor);
}

/** Delete: deletes the character after the cursor. */
export function deleteForward(buffer: PromptBuffer): PromptBuffer {
  return removeRange(buffer, buffer.cursor, clusterEnd(buffer.text, buffer.cursor));
}

/**
 * Ctrl+W: deletes the spaces before the cursor, then the word before them (up to the previous
 * space, as a shell does). At the start of a line it deletes the line break, joining the lines.
 */
export function deleteWordBackward(buffer: PromptBuffer): PromptBuffer {
  const { text, cursor } = buffer;
  if (cursor > 0 && text[cursor - 1] === '\n') return removeRange(buffer, cursor - 1, cursor);
  let start = cursor;
  while (start > 0 && (text[start - 1] === ' ' || text[start - 1] === '\t')) start--;
  while (start > 0 && !/\s/.test(text[start - 1])) start--;
  return removeRange(buffer, start, cursor);
}

/** Ctrl+K: deletes from the cursor to the end of its line; at the end of a line, the line break. */
export function deleteToLineEnd(buffer: PromptBuffer): PromptBuffer {
  const end = lineEndOf(buffer.text, buffer.cursor);
  return removeRange(buffer, buffer.cursor, end === buffer.cursor ? clusterEnd(buffer.text, end) : end);
}

/** Ctrl+U: deletes from the start of the cursor's line to the cursor; at the start of a line, the line break before it. */
export function deleteToLineStart(buffer: PromptBuffer): PromptBuffer {
  const start = lineStartOf(buffer.text, buffer.cursor);
  return removeRange(buffer, start === buffer.cursor ? Math.max(0, start - 1) : start, buffer.cursor);
}

/** Empties the prompt. */
export function clearBuffer(): PromptBuffer {
  return EMPTY_BUFFER;
}

/** ←: one character back, to the end of the previous line from the start of a line. */
export function moveLeft(buffer: PromptBuffer): PromptBuffer {
  return { text: buffer.text, cursor: clusterStart(buffer.text, buffer.cursor) };
}

/** →: one character on, to the start of the next line from the end of a line. */
export function moveRight(buffer: PromptBuffer): PromptBuffer {
  return { text: buffer.text, cursor: clusterEnd(buffer.text, buffer.cursor) };
}

/** Ctrl+A: the start of the cursor's line. */
export function moveToLineStart(buffer: PromptBuffer): PromptBuffer {
  return { text: buffer.text, cursor: lineStartOf(buffer.text, buffer.cursor) };
}

/** Ctrl+E: the end of the cursor's line. */
export function moveToLineEnd(buffer: PromptBuffer): PromptBuffer {
  return { text: buffer.text, cursor: lineEndOf(buffer.text, buffer.cursor) };
}

/** The start of the whole prompt. */
export function moveToStart(buffer: PromptBuffer): PromptBuffer {
  return { text: buffer.text, cursor: 0 };
}

/** The end of the whole prompt. */
export function moveToEnd(buffer: PromptBuffer): PromptBuffer {
  return { text: buffer.text, cursor: buffer.text.length };
}

/**
 * ↑: the row above, at the column the cursor had when Up or Down was first pressed; on the first
 * row, the start of the prompt. `width`, the prompt's width in cells, makes it move by screen rows
 * through a wrapped line; without it, it moves by lines.
 */
export function moveUp(buffer: PromptBuffer, width = Infinity): PromptBuffer {
  return { text: buffer.text, ...rowAbove(buffer.text, buffer.cursor, buffer.goalColumn, width) };
}

/** ↓: the row below at the goal column; on the last row, the end of the prompt. `width` as for `moveUp`. */
export function moveDown(buffer: PromptBuffer, width = Infinity): PromptBuffer {
  return { text: buffer.text, ...rowBelow(buffer.text, buffer.cursor, buffer.goalColumn, width) };
}

/** Whether the cursor is on the prompt's first row (by lines without `width`, by screen rows with it). */
export function isOnFirstRow(buffer: PromptBuffer, width = Infinity): boolean {
  return onFirstRow(buffer.text, buffer.cursor, width);
}

/** Whether the cursor is on the prompt's last row. */
export function isOnLastRow(buffer: PromptBuffer, width = Infinity): boolean {
  return onLastRow(buffer.text, buffer.cursor, width);
}

function removeRange(buffer: PromptBuffer, start: number, end: number): PromptBuffer {
  if (start >= end) return withoutGoal(buffer);
  return { text: buffer.text.slice(0, start) + buffer.text.slice(end), cursor: start };
}

function withoutGoal(buffer: PromptBuffer): PromptBuffer {
  return buffer.goalColumn === undefined ? buffer : { text: buffer.text, cursor: buffer.cursor };
}
