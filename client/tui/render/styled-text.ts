import { splitToWidth, textWidth } from './columns.js';
import { unstyled, type Style } from './palette.js';

/**
 * A stretch of text in one style. In `text`, runs of spaces count as one space where lines are
 * wrapped, and `\n` is a hard line break.
 */
export interface Run {
  text: string;
  style: Style;
}

type Item = { kind: 'word'; pieces: Run[]; width: number } | { kind: 'space'; style: Style } | { kind: 'break' };

/**
 * Styled `runs` laid out in lines of at most `width` columns, broken between words; a word longer
 * than a line is cut where the line ends. Each line carries its own ANSI codes, so lines can be
 * printed, indented or dropped one by one.
 */
export function wrapRuns(runs: readonly Run[], width: number): string[] {
  const lines: string[] = [];
  let line: Run[] = [];
  let lineWidth = 0;
  let spaceBefore: Style | undefined;

  const endLine = () => {
    lines.push(paintRuns(line));
    line = [];
    lineWidth = 0;
    spaceBefore = undefined;
  };
  const append = (piece: Run, pieceWidth: number) => {
    line.push(piece);
    lineWidth += pieceWidth;
  };

  for (const item of itemsOf(runs)) {
    if (item.kind === 'break') {
      endLine();
    } else if (item.kind === 'space') {
      if (line.length > 0) spaceBefore = item.style;
    } else {
      const spaceWidth = spaceBefore ? 1 : 0;
      if (lineWidth + spaceWidth + item.width <= width) {
        if (spaceBefore) append({ text: ' ', style: spaceBefore }, 1);
      } else if (line.length > 0) {
        endLine();
      }
      spaceBefore = undefined;
      if (item.width <= width - lineWidth) {
        for (const piece of item.pieces) line.push(piece);
        lineWidth += item.width;
        continue;
      }
      for (const piece of item.pieces) {
        let rest = piece.text;
        while (rest !== '') {
          const room = Math.max(width - lineWidth, 1);
          const chunk = splitToWidth(rest, room)[0];
          const chunkWidth = textWidth(chunk);
          if (chunkWidth > room && line.length > 0) {
            endLine();
            continue;
          }
          append({ text: chunk, style: piece.style }, chunkWidth);
          rest = rest.slice(chunk.length);
          if (rest !== '') endLine();
        }
      }
    }
  }
  if (line.length > 0) endLine();
  return lines;
}

/** Runs painted as one string, neighbours in the same style painted together. */
export function paintRuns(runs: readonly Run[]): string {
  let painted = '';
  let index = 0;
  while (index < runs.length) {
    const style = runs[index].style;
    let text = '';
    while (index < runs.length && runs[index].style === style) text += runs[index++].text;
    painted += style === unstyled ? text : style(text);
  }
  return painted;
}

/** How many columns the runs take on one line. */
export function runsWidth(runs: readonly Run[]): number {
  return runs.reduce((sum, run) => sum + textWidth(run.text), 0);
}

/** Words (made of pieces from neighbouring runs when no space parts them), spaces and breaks. */
function itemsOf(runs: readonly Run[]): Item[] {
  const items: Item[] = [];
  let word: Extract<Item, { kind: 'word' }> | undefined;
  for (const run of runs) {
    for (const token of run.text.split(/(\n|[ \t\r\f\v]+)/)) {
      if (token === '') continue;
      if (token === '\n') {
        items.push({ kind: 'break' });
        word = undefined;
      } else if (token.trim() === '') {
        items.push({ kind: 'space', style: run.style });
        word = undefined;
      } else if (word) {
        word.pieces.push({ text: token, style: run.style });
        word.width += textWidth(token);
      } else {
        word = { kind: 'word', pieces: [{ text: token, style: run.style }], width: textWidth(token) };
        items.push(word);
      }
    }
  }
  return items;
}
