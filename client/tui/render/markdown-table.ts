import type { Tokens } from 'marked';
import { textWidth } from './columns.js';
import { inlineRuns } from './markdown-inline.js';
import { color, unstyled } from './palette.js';
import { runsWidth, wrapRuns, type Run } from './styled-text.js';

type Align = Tokens.Table['align'][number];

const COLUMN_GAP = ` ${color.dim('│')} `;
const GAP_WIDTH = 3;
/** Narrower than this and a table is clearer as `header: value` lines. */
const MIN_COLUMN_WIDTH = 4;

/**
 * A table with its columns aligned and, when too wide for `width`, narrowed (the widest first) with
 * their cells wrapped. A terminal too narrow for the columns gets each row as `header: value` lines.
 */
export function renderTable(table: Tokens.Table, width: number): string[] {
  const header = table.header.map((cell) => inlineRuns(cell.tokens, color.bold));
  const rows = table.rows.map((row) => header.map((_, column) => inlineRuns(row[column]?.tokens, unstyled)));
  const available = width - GAP_WIDTH * (header.length - 1);
  if (available < MIN_COLUMN_WIDTH * header.length) return stackedRows(header, rows, width);

  const natural = header.map((_, column) => Math.max(1, ...[header, ...rows].map((cells) => runsWidth(cells[column]))));
  const widths = fitColumns(natural, available);
  const rule = color.dim(widths.map((columnWidth) => '─'.repeat(columnWidth)).join('─┼─'));
  return [
    ...tableRow(header, widths, table.align),
    rule,
    ...rows.flatMap((cells) => tableRow(cells, widths, table.align)),
  ];
}

/** Column widths within `available` columns: narrow columns keep their width, wide ones share the rest. */
function fitColumns(natural: number[], available: number): number[] {
  if (natural.reduce((sum, columnWidth) => sum + columnWidth, 0) <= available) return natural;
  const widths = [...natural];
  let open = natural.map((_, column) => column);
  let remaining = available;
  for (;;) {
    const share = Math.floor(remaining / open.length);
    const fitting = open.filter((column) => natural[column] <= share);
    if (fitting.length === 0) {
      open.forEach((column, index) => {
        widths[column] = share + (index < remaining - share * open.length ? 1 : 0);
      });
      return widths;
    }
    for (const column of fitting) remaining -= natural[column];
    open = open.filter((column) => natural[column] > share);
  }
}

/** One table row, as many lines tall as its tallest wrapped cell. */
function tableRow(cells: Run[][], widths: number[], align: Align[]): string[] {
  const wrapped = cells.map((runs, column) => wrapRuns(runs, widths[column]));
  const height = Math.max(1, ...wrapped.map((lines) => lines.length));
  const lines: string[] = [];
  for (let row = 0; row < height; row++) {
    const parts = wrapped.map((cellLines, column) => {
      const isLast = column === cells.length - 1;
      return pad(cellLines[row] ?? '', widths[column], align[column], isLast);
    });
    lines.push(parts.join(COLUMN_GAP));
  }
  return lines;
}

function pad(text: string, columnWidth: number, align: Align, isLast: boolean): string {
  const space = Math.max(columnWidth - textWidth(text), 0);
  if (align === 'right') return ' '.repeat(space) + text;
  if (align === 'center') {
    const before = Math.floor(space / 2);
    return ' '.repeat(before) + text + (isLast ? '' : ' '.repeat(space - before));
  }
  return isLast ? text : text + ' '.repeat(space);
}

/** Each row as `header: value` lines, rows apart by a blank line; just the headers while no row has come. */
function stackedRows(header: Run[][], rows: Run[][][], width: number): string[] {
  if (rows.length === 0)
    return wrapRuns(
      header.flatMap((cell, column) => (column > 0 ? [{ text: ' │ ', style: color.dim }, ...cell] : cell)),
      width,
    );
  return rows.flatMap((cells, index) => [
    ...(index > 0 ? [''] : []),
    ...cells.flatMap((cell, column) =>
      wrapRuns([...header[column], { text: ': ', style: color.bold }, ...cell], width),
    ),
  ]);
}
