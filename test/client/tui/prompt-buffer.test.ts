import { describe, expect, it } from 'vitest';
import {
  EMPTY_BUFFER,
  bufferOf,
  clearBuffer,
  deleteBackward,
  deleteForward,
  deleteToLineEnd,
  deleteToLineStart,
  deleteWordBackward,
  insertNewline,
  insertText,
  isOnFirstRow,
  isOnLastRow,
  moveDown,
  moveLeft,
  moveRight,
  moveToLineEnd,
  moveToLineStart,
  moveUp,
  type PromptBuffer,
} from '../../../client/tui/input/prompt-buffer.js';
import { renderLines, scrollTop } from '../../../client/tui/input/render-lines.js';

/** The buffer with the cursor drawn as `|`, to read a test's expectation at a glance. */
const shown = (buffer: PromptBuffer) => buffer.text.slice(0, buffer.cursor) + '|' + buffer.text.slice(buffer.cursor);
/** A buffer from a picture with `|` as the cursor. */
const typed = (picture: string) => bufferOf(picture.replace('|', ''), picture.indexOf('|'));
const type = (buffer: PromptBuffer, ...keys: string[]) => keys.reduce(insertText, buffer);

describe('typing and pasting', () => {
  it('inserts at the cursor, in the middle of a line too', () => {
    expect(shown(type(EMPTY_BUFFER, 'h', 'i'))).toBe('hi|');
    expect(shown(insertText(typed('fix |bug'), 'the '))).toBe('fix the |bug');
  });

  it('lands a 1 MB paste whole, quickly, with the cursor after it', () => {
    const line = 'const answer = compute(42); // a line of pasted code\n';
    const paste = line.repeat(Math.ceil(1_000_000 / line.length));
    const started = performance.now();
    const buffer = insertText(typed('before |after'), paste);
    expect(performance.now() - started).toBeLessThan(500);
    expect(buffer.text).toBe('before ' + paste + 'after');
    expect(buffer.cursor).toBe(7 + paste.length);
  });

  it('takes the line breaks of a paste (sent as \\r by terminals) as new lines, and drops escape sequences', () => {
    expect(insertText(EMPTY_BUFFER, 'one\rtwo\r\nthree').text).toBe('one\ntwo\nthree');
    expect(insertText(EMPTY_BUFFER, '\u001b[31mred\u001b[0m\ttab').text).toBe('[31mred[0m\ttab');
  });

  it('starts a new line at the cursor', () => {
    expect(shown(insertNewline(typed('first|second')))).toBe('first\n|second');
  });
});

describe('deleting', () => {
  it('backspace and delete take a whole character: an emoji with its skin tone, an accented letter', () => {
    expect(shown(deleteBackward(typed('ok 👍🏽|')))).toBe('ok |');
    expect(shown(deleteBackward(typed('cafe\u0301|')))).toBe('caf|');
    expect(shown(deleteForward(typed('|🇫🇷 flag')))).toBe('| flag');
    expect(shown(deleteBackward(typed('|start')))).toBe('|start');
    expect(shown(deleteForward(typed('end|')))).toBe('end|');
  });

  it('backspace at the start of a line joins it to the line above', () => {
    expect(shown(deleteBackward(typed('one\n|two')))).toBe('one|two');
  });

  it('ctrl+w deletes the word before the cursor and the spaces after it', () => {
    expect(shown(deleteWordBackward(typed('git commit --amend  |')))).toBe('git commit |');
    expect(shown(deleteWordBackward(typed('src/app.ts|')))).toBe('|');
    expect(shown(deleteWordBackward(typed('one\n|two')))).toBe('one|two');
    expect(shown(deleteWordBackward(typed('one\n   |two')))).toBe('one\n|two');
  });

  it('ctrl+k deletes to the end of the line, and at its end joins the next line', () => {
    expect(shown(deleteToLineEnd(typed('keep| this\nnext')))).toBe('keep|\nnext');
    expect(shown(deleteToLineEnd(typed('keep|\nnext')))).toBe('keep|next');
  });

  it('ctrl+u deletes to the start of the line, and at its start joins the line above', () => {
    expect(shown(deleteToLineStart(typed('first\ndrop |keep')))).toBe('first\n|keep');
    expect(shown(deleteToLineStart(typed('first\n|second')))).toBe('first|second');
  });

  it('clear empties the prompt', () => {
    expect(clearBuffer()).toEqual(EMPTY_BUFFER);
  });
});

describe('moving the cursor', () => {
  it('left and right step over whole characters and across line breaks', () => {
    expect(shown(moveLeft(typed('a👍🏽|')))).toBe('a|👍🏽');
    expect(shown(moveRight(typed('a|👍🏽')))).toBe('a👍🏽|');
    expect(shown(moveLeft(typed('one\n|two')))).toBe('one|\ntwo');
    expect(shown(moveRight(typed('one|\ntwo')))).toBe('one\n|two');
  });

  it('ctrl+a and ctrl+e go to the start and end of the current line', () => {
    expect(shown(moveToLineStart(typed('one\ntw|o\nthree')))).toBe('one\n|two\nthree');
    expect(shown(moveToLineEnd(typed('one\nt|wo\nthree')))).toBe('one\ntwo|\nthree');
  });

  it('up and down keep the column they started from through a shorter line', () => {
    let buffer = typed('a long first line\nab\nanother long line|');
    buffer = moveToLineStart(buffer);
    buffer = moveRight(moveRight(moveRight(moveRight(moveRight(buffer)))));
    expect(shown(buffer)).toBe('a long first line\nab\nanoth|er long line');
    buffer = moveUp(buffer);
    expect(shown(buffer)).toBe('a long first line\nab|\nanother long line');
    buffer = moveUp(buffer);
    expect(shown(buffer)).toBe('a lon|g first line\nab\nanother long line');
    buffer = moveDown(moveDown(buffer));
    expect(shown(buffer)).toBe('a long first line\nab\nanoth|er long line');
  });

  it('up on the first line goes to the start, down on the last line to the end', () => {
    expect(shown(moveUp(typed('on|e\ntwo')))).toBe('|one\ntwo');
    expect(shown(moveDown(typed('one\nt|wo')))).toBe('one\ntwo|');
  });

  it('with the prompt width, up and down walk the rows of a wrapped line', () => {
    const buffer = typed('abcdefghij|');
    expect(shown(moveUp(buffer, 4))).toBe('abcdef|ghij');
    expect(shown(moveUp(moveUp(buffer, 4), 4))).toBe('ab|cdefghij');
    expect(isOnFirstRow(buffer)).toBe(true);
    expect(isOnFirstRow(buffer, 4)).toBe(false);
    expect(isOnLastRow(typed('ab|cdefghij'), 4)).toBe(false);
    expect(isOnLastRow(typed('abcdefghi|j'), 4)).toBe(true);
  });

  it('counts wide characters as two columns when moving between lines', () => {
    expect(shown(moveUp(typed('漢字かな\nabcd|'), Infinity))).toBe('漢字|かな\nabcd');
    expect(shown(moveDown(typed('漢|字\nabcd'), Infinity))).toBe('漢字\nab|cd');
  });
});

describe('renderLines', () => {
  it('wraps long lines at the width and says where the cursor is', () => {
    expect(renderLines(typed('hello wor|ld\nbye'), 5)).toEqual({
      lines: ['hello', ' worl', 'd', 'bye'],
      cursorRow: 1,
      cursorColumn: 4,
    });
  });

  it('draws the cursor on an empty prompt at the start', () => {
    expect(renderLines(EMPTY_BUFFER, 20)).toEqual({ lines: [''], cursorRow: 0, cursorColumn: 0 });
  });

  it('puts the cursor on a new row when it is at the end of a full row', () => {
    expect(renderLines(typed('abcd|'), 4)).toEqual({ lines: ['abcd', ''], cursorRow: 1, cursorColumn: 0 });
    expect(renderLines(typed('ab|cd'), 4)).toEqual({ lines: ['abcd'], cursorRow: 0, cursorColumn: 2 });
  });

  it('counts wide characters as two cells and never splits them across rows', () => {
    expect(renderLines(typed('ab漢字|x'), 5)).toEqual({ lines: ['ab漢', '字x'], cursorRow: 1, cursorColumn: 2 });
  });

  it('draws tabs as spaces', () => {
    expect(renderLines(typed('\tx|'), 20)).toEqual({ lines: ['    x'], cursorRow: 0, cursorColumn: 5 });
  });

  it('renders a 1 MB prompt quickly', () => {
    const buffer = insertText(EMPTY_BUFFER, 'x'.repeat(60) + ' é\n'.repeat(1) + 'y'.repeat(1_000_000));
    const started = performance.now();
    const rendered = renderLines(buffer, 80);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(rendered.lines.length).toBe(1 + 12_500 + 1);
    expect(rendered.cursorRow).toBe(rendered.lines.length - 1);
  });

  it('scrolls only as far as needed to keep the cursor in view', () => {
    expect(scrollTop(2, 10, 3, 0)).toBe(0);
    expect(scrollTop(5, 10, 3, 0)).toBe(3);
    expect(scrollTop(4, 10, 3, 3)).toBe(3);
    expect(scrollTop(1, 10, 3, 3)).toBe(1);
  });
});
