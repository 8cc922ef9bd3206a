import type { PromptBuffer } from './prompt-buffer.js';
import { drawnText, lineEndOf } from './text-cells.js';
import { columnIn, rowIndexOf, wrapLine } from './wrap-rows.js';

/** The prompt as screen rows, and where to draw the cursor among them. */
export interface RenderedPrompt {
  /** One string a row, each at most `width` cells (tabs drawn as spaces); at least one row. */
  readonly lines: string[];
  readonly cursorRow: number;
  /** The cell the cursor is drawn on (over the character after it, or past the row's end). */
  readonly cursorColumn: number;
}

/**
 * The buffer wrapped at `width` cells (wide characters counted as two), with the cursor's row and
 * column. When the cursor is at the end of a full row it is drawn at the start of an extra, empty
 * row below, as terminals do. The work is one pass over the text; the component should keep the
 * result while neither the buffer nor the width changes.
 */
export function renderLines(buffer: PromptBuffer, width: number): RenderedPrompt {
  const cells = Math.max(1, Math.floor(width));
  const { text, cursor } = buffer;
  const lines: string[] = [];
  let cursorRow = 0;
  let cursorColumn = 0;
  for (let lineStart = 0; ;) {
    const lineEnd = lineEndOf(text, lineStart);
    const rows = wrapLine(text, lineStart, lineEnd, cells);
    const holdsCursor = cursor >= lineStart && cursor <= lineEnd;
    const cursorIndex = holdsCursor ? rowIndexOf(rows, cursor) : -1;
    rows.forEach((row, index) => {
      lines.push(drawnText(text, row.start, row.end));
      if (index !== cursorIndex) return;
      cursorRow = lines.length - 1;
      cursorColumn = columnIn(text, row, cursor);
    });
    if (holdsCursor && cursorColumn >= cells) {
      lines.push('');
      cursorRow = lines.length - 1;
      cursorColumn = 0;
    }
    if (lineEnd === text.length) break;
    lineStart = lineEnd + 1;
  }
  return { lines, cursorRow, cursorColumn };
}

/**
 * The first row to show when only `height` rows fit: `previousTop` again if the cursor is still in
 * view (so the prompt does not jump while the cursor moves inside it), else the nearest top that
 * shows it.
 */
export function scrollTop(cursorRow: number, rowCount: number, height: number, previousTop = 0): number {
  const visible = Math.max(1, height);
  let top = Math.max(0, Math.min(previousTop, rowCount - visible));
  if (cursorRow < top) top = cursorRow;
  if (cursorRow >= top + visible) top = cursorRow - visible + 1;
  return top;
}
