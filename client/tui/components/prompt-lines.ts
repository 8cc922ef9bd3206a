import pc from 'picocolors';
import type { PromptBuffer } from '../input/prompt-buffer.js';
import { renderLines } from '../input/render-lines.js';

/** The most lines the prompt box grows to; a longer draft scrolls with its cursor. */
const MAX_LINES = 8;

/** The prompt box's lines: the draft with its cursor, a placeholder when empty. */
export function promptLines(
  buffer: PromptBuffer,
  options: { width: number; placeholder: string; focused: boolean },
): string[] {
  const width = Math.max(options.width - 2, 10);
  if (!buffer.text) {
    const cursor = options.focused ? pc.inverse(' ') : ' ';
    return [`${pc.cyan('›')} ${cursor}${pc.dim(options.placeholder.slice(0, width - 2))}`];
  }
  const { lines, cursorRow, cursorColumn } = renderLines(buffer, width);
  const first = Math.max(0, Math.min(cursorRow - MAX_LINES + 1, lines.length - MAX_LINES));
  return lines.slice(first, first + MAX_LINES).map((line, index) => {
    const row = first + index;
    const prefix = row === 0 ? `${pc.cyan('›')} ` : '  ';
    if (row !== cursorRow || !options.focused) return prefix + line;
    const at = line.slice(cursorColumn, cursorColumn + 1) || ' ';
    return prefix + line.slice(0, cursorColumn) + pc.inverse(at) + line.slice(cursorColumn + 1);
  });
}
