import stringWidth from './string-width.js';

/** How many terminal columns `text` takes (ANSI codes take none, CJK and most emoji take two). */
export function textWidth(text: string): number {
  return stringWidth(text);
}

/**
 * Plain `text` cut into pieces of at most `width` columns, never splitting a character. A
 * character wider than `width` gets a piece of its own rather than looping forever.
 */
export function splitToWidth(text: string, width: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  let pieceWidth = 0;
  for (const char of text) {
    const charWidth = textWidth(char);
    if (pieceWidth + charWidth > width && piece !== '') {
      pieces.push(piece);
      piece = '';
      pieceWidth = 0;
    }
    piece += char;
    pieceWidth += charWidth;
  }
  if (piece !== '' || pieces.length === 0) pieces.push(piece);
  return pieces;
}

/** Plain `text` cut to `width` columns, ending in `…` when something was cut. */
export function truncateToWidth(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  if (width <= 0) return '';
  let kept = '';
  let keptWidth = 0;
  for (const char of text) {
    const charWidth = textWidth(char);
    if (keptWidth + charWidth > width - 1) break;
    kept += char;
    keptWidth += charWidth;
  }
  return `${kept}…`;
}

/** `text` on one line (its line breaks shown as `⏎`), cut to `width` columns. */
export function oneLine(text: string, width: number): string {
  return truncateToWidth(text.replace(/\s*\n\s*/g, ' ⏎ '), width);
}

/** `text` without its colours and styles (SGR codes). */
export function stripStyles(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;:]*m/g, '');
}

/** Tabs replaced by spaces up to the next tab stop, as a terminal would show them. */
export function expandTabs(line: string, tabSize: number): string {
  if (!line.includes('\t')) return line;
  let expanded = '';
  let column = 0;
  for (const part of line.split(/(\t)/)) {
    if (part === '\t') {
      const spaces = tabSize - (column % tabSize);
      expanded += ' '.repeat(spaces);
      column += spaces;
    } else {
      expanded += part;
      column += textWidth(part);
    }
  }
  return expanded;
}
