import { eastAsianWidth } from 'get-east-asian-width';
import slowStringWidth from 'string-width';
import stripAnsi from 'strip-ansi';

/**
 * `string-width`, with the same answers, fast for the characters a screen is mostly made of. The
 * terminal UI measures every line of every frame (Ink does too: the bundle points its
 * `string-width` here), and string-width splits any text that is not plain ASCII into grapheme
 * clusters and tests each against Unicode property expressions: ~0.4 ms for a line of `─`, and
 * ~10 ms to compile them on the first non-ASCII character.
 *
 * Text made only of `ALONE` characters (Latin, Greek and Cyrillic letters, punctuation, arrows,
 * box drawing, symbols, Braille (the spinner), CJK ideographs: none of them joins its neighbour into one cluster) is
 * measured a character at a time. Anything else (combining marks, joiners, Hangul jamo, emoji
 * outside the Basic Multilingual Plane) goes to string-width. test/client/tui/string-width.test.ts
 * checks every `ALONE` character, alone and beside others, against string-width itself.
 */
const ALONE =
  /^[\x20-\x7e\xa0-\xac\xae-\u02ff\u0370-\u0482\u2010-\u2027\u2030-\u205e\u2070-\u20cf\u2100-\u2bff\u2800-\u28ff\u4e00-\u9fff]*$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** What string-width counts as taking no column when it stands alone. */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Control}\p{Format}\p{Nonspacing_Mark}\p{Enclosing_Mark}]/u;
/** Emoji drawn as emoji by default: two columns, as string-width's `RGI_Emoji` test makes them. */
const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u;

/** Each BMP character's width plus one, 0 while not yet worked out. */
const widths = new Uint8Array(0x10000);

function charWidth(code: number): number {
  let known = widths[code];
  if (known === 0) {
    const char = String.fromCharCode(code);
    const width = INVISIBLE.test(char) ? 0 : EMOJI_PRESENTATION.test(char) ? 2 : eastAsianWidth(code);
    known = widths[code] = width + 1;
  }
  return known - 1;
}

export interface StringWidthOptions {
  ambiguousIsNarrow?: boolean;
  countAnsiEscapeCodes?: boolean;
}

export default function stringWidth(input: string, options?: StringWidthOptions): number {
  if (typeof input !== 'string' || input.length === 0) return 0;
  if (options && (options.ambiguousIsNarrow === false || options.countAnsiEscapeCodes))
    return slowStringWidth(input, options);
  const text = input.includes('\x1b') || input.includes('\x9b') ? stripAnsi(input) : input;
  if (PRINTABLE_ASCII.test(text)) return text.length;
  if (!ALONE.test(text)) return slowStringWidth(text);
  let width = 0;
  for (let index = 0; index < text.length; index++) width += charWidth(text.charCodeAt(index));
  return width;
}
