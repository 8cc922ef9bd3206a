import { splitStyledLine } from './ansi-lines.js';
import { expandTabs, textWidth } from './columns.js';
import { highlightCode } from './highlight.js';
import { color } from './palette.js';

const GUTTER = `  ${color.dim('│')} `;
const GUTTER_WIDTH = 4;
const TAB_SIZE = 4;

/**
 * A fenced code block as it shows in an answer: highlighted when its language is known, indented
 * behind a dim rule, without the fence markers; lines longer than `width` go on in the next row.
 */
export function renderCodeBlock(code: string, language: string | undefined, width: number): string[] {
  const plainLines = code.split('\n').map((line) => expandTabs(line, TAB_SIZE));
  const painted = highlightCode(plainLines.join('\n'), language);
  const contentWidth = Math.max(width - GUTTER_WIDTH, 1);
  const rows: string[] = [];
  painted.forEach((line, index) => {
    const lineWidth = textWidth(plainLines[index] ?? line);
    const pieces = lineWidth <= contentWidth ? [line] : splitStyledLine(line, contentWidth);
    for (const piece of pieces) rows.push(GUTTER + piece);
  });
  return rows;
}
