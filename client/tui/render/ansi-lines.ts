import { splitToWidth, textWidth } from './columns.js';

// eslint-disable-next-line no-control-regex -- SGR sequences start with ESC
const SGR = /\x1b\[([0-9;]*)m/g;

/** The code that ends each kind of style an SGR sequence can start: bold and dim share 22. */
function closingCode(code: number): number | undefined {
  if (code === 1 || code === 2) return 22;
  if (code >= 3 && code <= 9) return 20 + code;
  if ((code >= 30 && code <= 38) || (code >= 90 && code <= 97)) return 39;
  if ((code >= 40 && code <= 48) || (code >= 100 && code <= 107)) return 49;
  return undefined;
}

/**
 * A line painted with SGR codes (colours, bold…) cut into rows of at most `width` columns. Each row
 * closes the styles still open where it ends and the next reopens them, so rows stand alone.
 */
export function splitStyledLine(line: string, width: number): string[] {
  const rows: string[] = [];
  /** Open sequences in the order they were opened, with the code that closes each. */
  let open: { sequence: string; closedBy: number }[] = [];
  let row = '';
  let rowWidth = 0;

  const endRow = () => {
    rows.push(
      row +
        open
          .map(({ closedBy }) => `\x1b[${closedBy}m`)
          .reverse()
          .join(''),
    );
    row = open.map(({ sequence }) => sequence).join('');
    rowWidth = 0;
  };
  const addText = (text: string) => {
    let rest = text;
    while (rest !== '') {
      if (rowWidth >= width) endRow();
      const [piece] = splitToWidth(rest, width - rowWidth);
      if (rowWidth > 0 && textWidth(piece) > width - rowWidth) {
        endRow(); // a wide character that does not fit in what is left of the row
        continue;
      }
      row += piece;
      rowWidth += textWidth(piece);
      rest = rest.slice(piece.length);
    }
  };

  let last = 0;
  for (const match of line.matchAll(SGR)) {
    addText(line.slice(last, match.index));
    last = match.index + match[0].length;
    row += match[0];
    const code = Number(match[1].split(';')[0] || 0);
    if (code === 0) open = [];
    const closedBy = closingCode(code);
    if (closedBy !== undefined) open.push({ sequence: match[0], closedBy });
    else open = open.filter((style) => style.closedBy !== code);
  }
  addText(line.slice(last));
  rows.push(row);
  return rows;
}
