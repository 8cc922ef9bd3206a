import { describe, expect, it } from 'vitest';
import { applyCompletion, completionQueryAt, rankCommands, rankFiles } from '../../../client/tui/input/completions.js';
import { bufferOf, type PromptBuffer } from '../../../client/tui/input/prompt-buffer.js';
import { TUI_COMMANDS, slashCommandChoices } from '../../../client/tui/input/slash-command-list.js';

/** A buffer from a picture with `|` as the cursor, and back. */
const typed = (picture: string) => bufferOf(picture.replace('|', ''), picture.indexOf('|'));
const shown = (buffer: PromptBuffer) => buffer.text.slice(0, buffer.cursor) + '|' + buffer.text.slice(buffer.cursor);

const PROJECT = [
  'README.md',
  'package.json',
  'src/',
  'docs/',
  'src/main.ts',
  'src/tui/',
  'src/tui/input/',
  'src/tui/input/main-menu.ts',
  'src/tui/input/prompt.ts',
  'docs/manual.md',
  'test/main.test.ts',
  'test/',
];

describe('completionQueryAt', () => {
  it('finds an @ mention being typed at the start of a line or after a space', () => {
    expect(completionQueryAt(typed('look at @src/ma|'))).toEqual({ kind: 'file', text: 'src/ma', start: 8, end: 15 });
    expect(completionQueryAt(typed('first line\n@|'))).toMatchObject({ kind: 'file', text: '' });
    expect(completionQueryAt(typed('@READ|ME and more'))).toEqual({ kind: 'file', text: 'READ', start: 0, end: 7 });
  });

  it('leaves email addresses and words after the mention alone', () => {
    expect(completionQueryAt(typed('mail me@example.com|'))).toBeUndefined();
    expect(completionQueryAt(typed('@src/main.ts and| more'))).toBeUndefined();
    expect(completionQueryAt(typed('|@src'))).toBeUndefined();
  });

  it('finds a / command only as the first word of the prompt', () => {
    expect(completionQueryAt(typed('/rev|'))).toEqual({ kind: 'command', text: 'rev', start: 0, end: 4 });
    expect(completionQueryAt(typed('/review some|'))).toBeUndefined();
    expect(completionQueryAt(typed('please /rev|'))).toBeUndefined();
    expect(completionQueryAt(typed('line\n/rev|'))).toBeUndefined();
  });
});

describe('rankFiles', () => {
  it('puts paths that start with the query first, then names, then substrings, then fuzzy matches', () => {
    expect(rankFiles(PROJECT, 'src/ma')).toEqual(['src/main.ts', 'src/tui/input/main-menu.ts']);
    expect(rankFiles(PROJECT, 'main')).toEqual(['src/main.ts', 'test/main.test.ts', 'src/tui/input/main-menu.ts']);
    expect(rankFiles(PROJECT, 'man')).toEqual([
      'docs/manual.md',
      'src/main.ts',
      'test/main.test.ts',
      'src/tui/input/main-menu.ts',
    ]);
    expect(rankFiles(PROJECT, 'stip')).toEqual([
      'src/tui/input/',
      'src/tui/input/prompt.ts',
      'src/tui/input/main-menu.ts',
    ]);
  });

  it('lists the top of the project for a bare @, folders with their /', () => {
    expect(rankFiles(PROJECT, '')).toEqual([
      'src/',
      'docs/',
      'test/',
      'README.md',
      'package.json',
      'src/tui/',
      'src/main.ts',
      'docs/manual.md',
      'test/main.test.ts',
      'src/tui/input/',
    ]);
  });

  it('ignores case and keeps to the limit', () => {
    expect(rankFiles(PROJECT, 'readme')).toEqual(['README.md']);
    expect(rankFiles(PROJECT, 's', 2)).toEqual(['src/', 'src/tui/']);
  });

  it('ranks 20,000 paths in well under a keystroke', () => {
    const many = Array.from({ length: 20_000 }, (_, index) => `pkg${index % 100}/src/module${index}.ts`);
    const started = performance.now();
    expect(rankFiles(many, 'mod42')).toHaveLength(10);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('rankCommands', () => {
  const commands = slashCommandChoices({
    command: {
      review: { template: 'Review $ARGUMENTS', description: 'Review changes' },
      release: { template: 'Cut a release' },
      new: { template: 'shadowed by the TUI command' },
    },
  });

  it("offers the TUI's commands, then the project's, without a project command the TUI's would shadow", () => {
    expect(commands.map((command) => command.name)).toEqual([
      ...TUI_COMMANDS.map((c) => c.name),
      'init',
      'release',
      'review',
    ]);
    expect(commands.find((command) => command.name === 'review')).toEqual({
      name: 'review',
      description: 'Review changes',
      source: 'project',
    });
  });

  it('ranks by name prefix, then alias, then substring, then fuzzy', () => {
    expect(rankCommands(commands, 'rev').map((command) => command.name)).toEqual(['review']);
    expect(rankCommands(commands, 're').map((command) => command.name)).toEqual([
      'redo',
      'release',
      'review',
      'sessions',
    ]);
    expect(rankCommands(commands, 'quit').map((command) => command.name)).toEqual(['exit']);
    expect(rankCommands(commands, 'mdl').map((command) => command.name)).toEqual(['models']);
    expect(rankCommands(commands, '')).toHaveLength(commands.length);
  });
});

describe('applyCompletion', () => {
  it('puts the picked file in place of the mention, with a space after it', () => {
    const buffer = typed('explain @src/ma| please');
    expect(shown(applyCompletion(buffer, completionQueryAt(buffer)!, 'src/main.ts'))).toBe(
      'explain @src/main.ts |please',
    );
    const atEnd = typed('explain @ma|');
    expect(shown(applyCompletion(atEnd, completionQueryAt(atEnd)!, 'src/main.ts'))).toBe('explain @src/main.ts |');
  });

  it('replaces the whole word the cursor is in', () => {
    const buffer = typed('@sr|c/mian.ts\nnext line');
    expect(shown(applyCompletion(buffer, completionQueryAt(buffer)!, 'src/main.ts'))).toBe('@src/main.ts |\nnext line');
  });

  it('leaves a picked folder open for typing on into it', () => {
    const buffer = typed('@sr|');
    expect(shown(applyCompletion(buffer, completionQueryAt(buffer)!, 'src/'))).toBe('@src/|');
  });

  it('puts a picked command at the start, ready for its arguments', () => {
    const buffer = typed('/rev|');
    expect(shown(applyCompletion(buffer, completionQueryAt(buffer)!, 'review'))).toBe('/review |');
  });
});
