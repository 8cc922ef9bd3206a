import slowStringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import stringWidth from '../../../client/tui/render/string-width.js';

// The fast width must give string-width's answer for every character it measures itself: any
// character that joins a neighbour into one cluster, or that string-width measures differently
// alone, fails here.

const RANGES: [number, number][] = [
  [0x20, 0x7e],
  [0xa0, 0xac],
  [0xae, 0x2ff],
  [0x370, 0x482],
  [0x2010, 0x2027],
  [0x2030, 0x205e],
  [0x2070, 0x20cf],
  [0x2100, 0x2bff],
  [0x2800, 0x28ff],
  [0x4e00, 0x9fff],
];
const everyChar = RANGES.flatMap(([from, to]) =>
  Array.from({ length: to - from + 1 }, (_, offset) => String.fromCharCode(from + offset)),
);

describe('the terminal UI’s string width', () => {
  it('measures each character it measures itself as string-width does, alone and between others', () => {
    const wrong: string[] = [];
    for (const char of everyChar) {
      for (const text of [char, `a${char}`, `${char}a`, `${char}${char}`, `─${char}─`]) {
        if (stringWidth(text) !== slowStringWidth(text))
          wrong.push(`U+${char.charCodeAt(0).toString(16)} in ${JSON.stringify(text)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('leaves text with combining marks, joiners, Hangul jamo and astral emoji to string-width', () => {
    for (const text of ['é', 'a\u200db', '\u1100\u1161', '👍🏽', '👨‍👩‍👧', '🇫🇷', '❤️', 'x\u00ad', '\u0915\u094d\u0937'])
      expect(stringWidth(text), text).toBe(slowStringWidth(text));
  });

  it('skips colours and counts CJK and emoji-presentation symbols as two columns', () => {
    expect(stringWidth('\x1b[31m─ 漢字 ─\x1b[39m')).toBe(8);
    expect(stringWidth('⌚ ✅')).toBe(5);
    expect(stringWidth('\x1b[1m\x1b[22m')).toBe(0);
    expect(stringWidth('·'.repeat(3), { ambiguousIsNarrow: false })).toBe(
      slowStringWidth('···', { ambiguousIsNarrow: false }),
    );
  });
});
