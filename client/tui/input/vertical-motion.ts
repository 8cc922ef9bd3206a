import { lineEndOf, lineStartOf } from './text-cells.js';
import { columnIn, offsetAtColumn, rowIndexOf, wrapLine, type Row } from './wrap-rows.js';

/**
 * Up and Down over a text. With a finite `width` (the prompt's width in cells) they move by screen
 * rows, so a long wrapped line is walked row by row; with Infinity, by lines. The column is kept
 * as a goal while they pass through shorter lines, as in any editor. prompt-buffer.ts wraps these
 * for buffers.
 */

/** Where the cursor lands and the column it keeps aiming for. */
export interface VerticalMove {
  cursor: number;
  goalColumn?: number;
}

/** ↑ from `cursor`: the row above at the goal column; on the first row, the start of the text. */
export function rowAbove(text: string, cursor: number, goalColumn: number | undefined, width: number): VerticalMove {
  const place = placeOf(text, cursor, width);
  const column = goalColumn ?? place.column;
  if (place.index > 0) return landOn(text, place.rows, place.index - 1, column);
  if (place.lineStart === 0) return { cursor: 0 };
  const above = rowsOfLine(text, place.lineStart - 1, width);
  return landOn(text, above, above.length - 1, column);
}

/** ↓ from `cursor`: the row below at the goal column; on the last row, the end of the text. */
export function rowBelow(text: string, cursor: number, goalColumn: number | undefined, width: number): VerticalMove {
  const place = placeOf(text, cursor, width);
  const column = goalColumn ?? place.column;
  if (place.index < place.rows.length - 1) return landOn(text, place.rows, place.index + 1, column);
  if (place.lineEnd === text.length) return { cursor: text.length };
  const below = rowsOfLine(text, place.lineEnd + 1, width);
  return landOn(text, below, 0, column);
}

/** Whether `cursor` is on the text's first row. */
export function onFirstRow(text: string, cursor: number, width: number): boolean {
  const place = placeOf(text, cursor, width);
  return place.lineStart === 0 && place.index === 0;
}

/** Whether `cursor` is on the text's last row. */
export function onLastRow(text: string, cursor: number, width: number): boolean {
  const place = placeOf(text, cursor, width);
  return place.lineEnd === text.length && place.index === place.rows.length - 1;
}

interface Place {
  lineStart: number;
  lineEnd: number;
  rows: Row[];
  index: number;
  column: number;
}

function placeOf(text: string, cursor: number, width: number): Place {
  const lineStart = lineStartOf(text, cursor);
  const lineEnd = lineEndOf(text, cursor);
  const rows = wrapLine(text, lineStart, lineEnd, cellsOf(width));
  const index = rowIndexOf(rows, cursor);
  return { lineStart, lineEnd, rows, index, column: columnIn(text, rows[index], cursor) };
}

function rowsOfLine(text: string, offset: number, width: number): Row[] {
  return wrapLine(text, lineStartOf(text, offset), lineEndOf(text, offset), cellsOf(width));
}

function landOn(text: string, rows: Row[], index: number, column: number): VerticalMove {
  return { cursor: offsetAtColumn(text, rows[index], column, index === rows.length - 1), goalColumn: column };
}

function cellsOf(width: number): number {
  return width === Infinity ? width : Math.max(1, Math.floor(width));
}
