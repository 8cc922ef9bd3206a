import { clusterCells, clusterEnd } from './text-cells.js';

/** One screen row of a wrapped line: `text[start, end)`. Rows of a line follow on without gaps. */
export interface Row {
  readonly start: number;
  readonly end: number;
}

// Printable ASCII: one cell a character, so such a line wraps by arithmetic.
const NOT_PLAIN = /[^\x20-\x7e]/g;

/**
 * The rows the line `text[lineStart, lineEnd)` takes in `width` cells: wrapped at the last
 * character that fits (not at word boundaries), a character wider than a row on a row of its own.
 * Always at least one row; `width` Infinity keeps the line on one.
 */
export function wrapLine(text: string, lineStart: number, lineEnd: number, width: number): Row[] {
  if (width === Infinity) return [{ start: lineStart, end: lineEnd }];
  if (isPlain(text, lineStart, lineEnd)) {
    if (lineEnd - lineStart <= width) return [{ start: lineStart, end: lineEnd }];
    const rows: Row[] = [];
    for (let start = lineStart; start < lineEnd; start += width)
      rows.push({ start, end: Math.min(start + width, lineEnd) });
    return rows;
  }
  const rows: Row[] = [];
  let start = lineStart;
  let cells = 0;
  for (let at = lineStart; at < lineEnd;) {
    const end = clusterEnd(text, at);
    const size = clusterCells(text, at, end);
    if (cells + size > width && at > start) {
      rows.push({ start, end: at });
      start = at;
      cells = 0;
    }
    cells += size;
    at = end;
  }
  rows.push({ start, end: lineEnd });
  return rows;
}

/** The index of the row holding `offset` (an offset where one row ends and the next starts belongs to the next). */
export function rowIndexOf(rows: readonly Row[], offset: number): number {
  let low = 0;
  let high = rows.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (rows[middle].start <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The cells between the start of `row` and `offset`: the column the cursor shows at. */
export function columnIn(text: string, row: Row, offset: number): number {
  if (isPlain(text, row.start, offset)) return offset - row.start;
  let cells = 0;
  for (let at = row.start; at < offset;) {
    const end = clusterEnd(text, at);
    cells += clusterCells(text, at, end);
    at = end;
  }
  return cells;
}

/**
 * The offset in `row` nearest to `column` without passing it. On a row that is not its line's
 * last, the row's end is the next row's start, so the cursor stops before the last character.
 */
export function offsetAtColumn(text: string, row: Row, column: number, lastOfLine: boolean): number {
  let cells = 0;
  let at = row.start;
  while (at < row.end) {
    const end = clusterEnd(text, at);
    const size = clusterCells(text, at, end);
    if (cells + size > column || (end === row.end && !lastOfLine)) break;
    cells += size;
    at = end;
  }
  return at;
}

function isPlain(text: string, start: number, end: number): boolean {
  if (start >= end) return true;
  NOT_PLAIN.lastIndex = start;
  const found = NOT_PLAIN.exec(text);
  return found === null || found.index >= end;
}
