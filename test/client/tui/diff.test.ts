import { stripVTControlCharacters as plain } from 'node:util';
import { describe, expect, it } from 'vitest';
import { diffStats, renderDiff } from '../../../client/tui/render/diff.js';

const RED = '\x1b[31m';
const GREEN = '\x1b[32m';

const numbered = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}`);
const file = (lines: string[]) => `${lines.join('\n')}\n`;

describe('renderDiff', () => {
  it('numbers each line by its place in the old and the new file, with three lines of context', () => {
    const before = numbered(12);
    const after = [...before];
    after.splice(5, 1, 'changed six', 'added');
    const lines = renderDiff(file(before), file(after), { width: 80 }).map(plain);
    expect(lines).toEqual([
      ' 3  3   line 3',
      ' 4  4   line 4',
      ' 5  5   line 5',
      ' 6    - line 6',
      '    6 + changed six',
      '    7 + added',
      ' 7  8   line 7',
      ' 8  9   line 8',
      ' 9 10   line 9',
    ]);
  });

  it('shows removed lines red and added lines green', () => {
    const lines = renderDiff('keep\nold\n', 'keep\nnew\n', { width: 80 });
    expect(lines.find((line) => plain(line).includes('- old'))).toContain(`${RED}- old`);
    expect(lines.find((line) => plain(line).includes('+ new'))).toContain(`${GREEN}+ new`);
  });

  it('separates changes far apart with a ⋯ line', () => {
    const before = numbered(30);
    const after = before.map((line, index) => (index === 1 || index === 27 ? `${line}!` : line));
    const lines = renderDiff(file(before), file(after), { width: 80 }).map(plain);
    expect(lines.filter((line) => line.trim() === '⋯')).toHaveLength(1);
    expect(lines).toContain(' 2    - line 2');
    expect(lines).toContain('   28 + line 28!');
  });

  it('cuts long lines at the width with …', () => {
    const lines = renderDiff('short\n', `${'word '.repeat(40)}\n`, { width: 30 }).map(plain);
    expect(lines.every((line) => line.length <= 30)).toBe(true);
    expect(lines.find((line) => line.includes('+'))).toMatch(/…$/);
  });

  it('stops at maxLines and says how many lines are left', () => {
    const after = numbered(20);
    const lines = renderDiff('', file(after), { width: 80, maxLines: 5 }).map(plain);
    expect(lines).toHaveLength(5);
    expect(lines[3]).toBe('    4 + line 4');
    expect(lines[4]).toBe('… 16 more lines');
  });

  it('shows nothing when nothing changed', () => {
    expect(renderDiff('same\n', 'same\n', { width: 80 })).toEqual([]);
  });
});

describe('diffStats', () => {
  it('counts added and removed lines', () => {
    expect(diffStats('a\nb\nc\n', 'a\nB\nc\nd\ne\n')).toEqual({ additions: 3, deletions: 1 });
    expect(diffStats('x\n', 'x\n')).toEqual({ additions: 0, deletions: 0 });
  });
});
