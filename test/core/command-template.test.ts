import { describe, expect, it } from 'vitest';
import {
  applyArguments,
  atReferences,
  parseSlashCommand,
  shellSubstitutions,
  tokenizeArguments,
} from '../../core/config/command-template.js';

describe('parseSlashCommand', () => {
  it('reads a command name and its arguments', () => {
    expect(parseSlashCommand('/review')).toEqual({ name: 'review', arguments: '' });
    expect(parseSlashCommand('/docs/check a b')).toEqual({ name: 'docs/check', arguments: 'a b' });
    expect(parseSlashCommand('/fix:lint   src/app.ts  ')).toEqual({ name: 'fix:lint', arguments: 'src/app.ts' });
    expect(parseSlashCommand('/review\nfocus on tests')).toEqual({ name: 'review', arguments: 'focus on tests' });
  });

  it('is not a command unless the prompt starts with `/name`', () => {
    expect(parseSlashCommand('hello /x')).toBeUndefined();
    expect(parseSlashCommand(' /review')).toBeUndefined();
    expect(parseSlashCommand('/')).toBeUndefined();
    expect(parseSlashCommand('/ review')).toBeUndefined();
    expect(parseSlashCommand('//x')).toBeUndefined();
    expect(parseSlashCommand('/review!now')).toBeUndefined();
  });
});

describe('tokenizeArguments', () => {
  it('splits on spaces, keeps quoted strings and image markers whole, and strips the quotes', () => {
    expect(tokenizeArguments('  a   b\tc  ')).toEqual(['a', 'b', 'c']);
    expect(tokenizeArguments(`"two words" 'and more' plain`)).toEqual(['two words', 'and more', 'plain']);
    expect(tokenizeArguments('look at [Image 1] and [image  22]')).toEqual([
      'look',
      'at',
      '[Image 1]',
      'and',
      '[image  22]',
    ]);
    expect(tokenizeArguments('"" x')).toEqual(['', 'x']);
    expect(tokenizeArguments("it's fine")).toEqual(["it's", 'fine']);
    expect(tokenizeArguments('')).toEqual([]);
  });
});

describe('applyArguments', () => {
  it('fills numbered placeholders, the highest one swallowing the rest', () => {
    expect(applyArguments('Compare $1 with $2.', 'a.ts b.ts c.ts d.ts')).toBe('Compare a.ts with b.ts c.ts d.ts.');
    expect(applyArguments('$2 then $1', 'x y z')).toBe('y z then x');
    expect(applyArguments('$1 and $1', 'x y')).toBe('x y and x y');
  });

  it('gives missing arguments as empty strings', () => {
    expect(applyArguments('[$1] [$2] [$3]', 'only')).toBe('[only] [] []');
    expect(applyArguments('[$1]', '')).toBe('[]');
  });

  it('gives $ARGUMENTS the raw argument string', () => {
    expect(applyArguments('Do: $ARGUMENTS', ' "quoted"  as  typed ')).toBe('Do:  "quoted"  as  typed ');
    expect(applyArguments('File $1; all: $ARGUMENTS', 'a b c')).toBe('File a b c; all: a b c');
  });

  it('appends the arguments when the template has no placeholder', () => {
    expect(applyArguments('Review the changes.', 'focus on tests')).toBe('Review the changes.\n\nfocus on tests');
    expect(applyArguments('Review the changes.', '')).toBe('Review the changes.');
    expect(applyArguments('Review the changes.', '   ')).toBe('Review the changes.');
    expect(applyArguments('Costs $0 and $x', 'a')).toBe('Costs $0 and $x\n\na');
  });

  it('reads whole numbers: $10 is the tenth argument, not $1 then 0', () => {
    const args = 'a b c d e f g h i j k l';
    expect(applyArguments('$1|$10', args)).toBe('a|j k l');
    expect(applyArguments('$1|$10|$2', 'a b')).toBe('a||b');
  });

  it('does not substitute placeholders that come in with the arguments', () => {
    expect(applyArguments('$1 / $ARGUMENTS', '$ARGUMENTS $2')).toBe('$ARGUMENTS $2 / $ARGUMENTS $2');
  });
});

describe('shellSubstitutions', () => {
  it('finds each !`command` with its position', () => {
    const text = 'Diff: !`git diff` and !`ls -a`. Not `this` or !``.';
    const found = shellSubstitutions(text);
    expect(found).toEqual([
      { command: 'git diff', start: 6, end: 17 },
      { command: 'ls -a', start: 22, end: 30 },
    ]);
    for (const { start, end, command } of found) expect(text.slice(start, end)).toBe(`!\`${command}\``);
    expect(shellSubstitutions('nothing here')).toEqual([]);
  });
});

describe('atReferences', () => {
  it('finds files, home paths and agent names', () => {
    expect(atReferences('Read @src/app.ts and @~/notes.md, then ask @explore')).toEqual([
      'src/app.ts',
      '~/notes.md',
      'explore',
    ]);
    expect(atReferences('@./a/b.test.ts @../up')).toEqual(['./a/b.test.ts', '../up']);
  });

  it('ignores email addresses and backticked mentions', () => {
    expect(atReferences('mail me@example.com or `@x` or `code @y`')).toEqual(['y']);
  });

  it('leaves out trailing periods and commas', () => {
    expect(atReferences('See @README.md. Also @a, @b.')).toEqual(['README.md', 'a', 'b']);
    expect(atReferences('Ends @file...')).toEqual(['file']);
  });

  it('lists each name once, in order of first appearance', () => {
    expect(atReferences('@b @a @b @a @c')).toEqual(['b', 'a', 'c']);
  });

  it('drops a bare @', () => {
    expect(atReferences('meet @ noon, @')).toEqual([]);
  });
});
