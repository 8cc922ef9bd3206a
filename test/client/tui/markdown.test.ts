import stringWidth from 'string-width';
import { stripVTControlCharacters as plain } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadHighlighter } from '../../../client/tui/render/highlight.js';
import { renderMarkdown } from '../../../client/tui/render/markdown.js';

// The grammars load apart from the first screen; these tests draw code with them in.
beforeAll(() => loadHighlighter());

const ESC = '\x1b[';
const BOLD = `${ESC}1m`;

function shown(text: string, width: number): string[] {
  return plain(renderMarkdown(text, width)).split('\n');
}

/** The SGR codes (`35` for magenta) painting `text` where it follows one, as in `ESC[35mconst`. */
function codesBefore(rendered: string, text: string): string | undefined {
  const chunk = rendered.split(ESC).find((part) => part.slice(part.indexOf('m') + 1).startsWith(text));
  return chunk?.slice(0, chunk.indexOf('m'));
}

function widest(lines: string[]): number {
  return Math.max(...lines.map((line) => stringWidth(line)));
}

describe('paragraphs', () => {
  const paragraph =
    'Temporal keeps the history of every workflow, so a worker that crashes half way through a turn picks it up again where it stopped, without asking the model twice.';

  it('wrap at word boundaries to fit the width', () => {
    const lines = shown(paragraph, 40);
    expect(lines.length).toBeGreaterThan(3);
    expect(widest(lines)).toBeLessThanOrEqual(40);
    expect(lines.join(' ')).toBe(paragraph);
  });

  it('cut a word longer than the line rather than overflow', () => {
    const url = `see ${'x'.repeat(50)} here`;
    const lines = shown(url, 20);
    expect(widest(lines)).toBeLessThanOrEqual(20);
    expect(lines.join('')).toContain('x'.repeat(20));
  });

  it('count wide characters as two columns', () => {
    const lines = shown('漢字 '.repeat(20), 10);
    expect(widest(lines)).toBeLessThanOrEqual(10);
  });

  it('join soft line breaks with a space and keep hard ones', () => {
    expect(shown('one\ntwo  \nthree', 80)).toEqual(['one two', 'three']);
  });

  it('put one blank line between blocks', () => {
    expect(shown('first\n\n\n\nsecond', 80)).toEqual(['first', '', 'second']);
  });
});

describe('inline styles', () => {
  it('show bold, italic and struck-through text styled, without their markers', () => {
    const rendered = renderMarkdown('**bold** *italic* ~~gone~~', 80);
    expect(plain(rendered)).toBe('bold italic gone');
    expect(rendered).toContain(`${BOLD}bold`);
    expect(rendered).toContain(`${ESC}3mitalic`);
    expect(rendered).toContain(`${ESC}9mgone`);
  });

  it('colour inline code apart from the text around it, without backticks', () => {
    const rendered = renderMarkdown('run `npm test` now', 80);
    expect(plain(rendered)).toBe('run npm test now');
    expect(codesBefore(rendered, 'npm test')).toMatch(/^3\d$/);
  });

  it('show a link as its text then its address, dimmed', () => {
    const rendered = renderMarkdown('read [the docs](https://docs.temporal.io)', 80);
    expect(plain(rendered)).toBe('read the docs (https://docs.temporal.io)');
    expect(rendered).toContain(`${ESC}2m (https://docs.temporal.io)`);
  });

  it('show a bare address once', () => {
    expect(shown('see https://temporal.io today', 80)).toEqual(['see https://temporal.io today']);
  });

  it('turn character references into characters', () => {
    expect(shown('a &amp; b &lt;T&gt; it&#39;s', 80)).toEqual(["a & b <T> it's"]);
  });
});

describe('blocks', () => {
  it('show headings bold without their # marks', () => {
    const rendered = renderMarkdown('# Plan\n\n### Step one', 80);
    expect(plain(rendered).split('\n')).toEqual(['Plan', '', 'Step one']);
    expect(rendered).toContain(`${BOLD}`);
  });

  it('indent nested lists under their parent and wrapped items under their text', () => {
    const lines = shown('- first item that is long enough to wrap\n  - nested\n    1. deep\n- second', 24);
    expect(lines).toEqual(['• first item that is', '  long enough to wrap', '  ◦ nested', '    1. deep', '• second']);
  });

  it('line up numbered items past nine', () => {
    const lines = shown(Array.from({ length: 10 }, (_, index) => `${index + 1}. item`).join('\n'), 80);
    expect(lines[0]).toBe(' 1. item');
    expect(lines[9]).toBe('10. item');
  });

  it('show task items as checkboxes', () => {
    expect(shown('- [x] tests pass\n- [ ] docs', 80)).toEqual(['[✓] tests pass', '[ ] docs']);
  });

  it('put a rule before each line of a quote', () => {
    const lines = shown('> a quote long enough to wrap onto a second line', 24);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.startsWith('│ ')).toBe(true);
    expect(widest(lines)).toBeLessThanOrEqual(24);
  });

  it('draw a horizontal rule across the width', () => {
    expect(shown('above\n\n---\n\nbelow', 30)[2]).toBe('─'.repeat(30));
  });
});

describe('tables', () => {
  const table = [
    '| Tool | Calls | What it did |',
    '|------|------:|-------------|',
    '| read | 3 | read the workflow and its tests |',
    '| edit | 12 | changed the retry policy |',
  ].join('\n');

  it('align columns', () => {
    const lines = shown(table, 100);
    const separators = lines.filter((line) => line.includes('│')).map((line) => line.indexOf('│'));
    expect(new Set(separators).size).toBe(1);
    expect(lines[1]).toMatch(/^─+┼─+┼─+$/);
    expect(lines.find((line) => line.startsWith('edit'))).toContain('   12 │');
  });

  it('narrow the widest column and wrap its cells to fit the width', () => {
    const lines = shown(table, 36);
    expect(widest(lines)).toBeLessThanOrEqual(36);
    expect(lines.join(' ').replace(/[\s│]+/g, ' ')).toContain('read the workflow and its tests');
  });

  it('fall back to one "header: value" line per cell when the columns cannot fit', () => {
    const lines = shown(table, 14);
    expect(widest(lines)).toBeLessThanOrEqual(14);
    expect(lines).toContain('Calls: 12');
  });

  it('show the header in bold', () => {
    expect(renderMarkdown(table, 100)).toContain(`${BOLD}Tool`);
  });
});

describe('code blocks', () => {
  const fence = '```ts\nconst answer: number = 42;\nreturn answer;\n```';

  it('highlight code in the fence language, without the fence markers', () => {
    const rendered = renderMarkdown(fence, 80);
    expect(codesBefore(rendered, 'const')).toMatch(/^3\d$/);
    const lines = plain(rendered).split('\n');
    expect(lines).toEqual(['  │ const answer: number = 42;', '  │ return answer;']);
  });

  it('leave code in an unknown language uncoloured', () => {
    const rendered = renderMarkdown('```nosuchlanguage\nconst x = 1;\n```', 80);
    expect(plain(rendered)).toBe('  │ const x = 1;');
    expect(codesBefore(rendered, 'const')).toBeUndefined();
  });

  it('carry long lines on to the next row, coloured and whole', () => {
    const long = `const message = "${'a'.repeat(60)}";`;
    const rendered = renderMarkdown(`\`\`\`js\n${long}\n\`\`\``, 30);
    const lines = plain(rendered).split('\n');
    expect(widest(lines)).toBeLessThanOrEqual(30);
    expect(lines.map((line) => line.slice(4)).join('')).toBe(long);
    for (const row of rendered.split('\n').slice(1, -1)) expect(codesBefore(row, 'aaa')).toMatch(/^3\d$/);
  });
});

describe('text cut off while it streams', () => {
  it('shows an open code fence as code, highlighted', () => {
    const rendered = renderMarkdown('Here:\n\n```ts\nconst a = 1;\nfunction f(', 80);
    expect(plain(rendered).split('\n')).toEqual(['Here:', '', '  │ const a = 1;', '  │ function f(']);
    expect(codesBefore(rendered, 'const')).toMatch(/^3\d$/);
  });

  it('shows half a table and a lone ** as they are so far', () => {
    expect(shown('| a | b |\n|---|---|\n| 1 |', 80).join('\n')).toContain('a');
    expect(shown('this is **important', 80)).toEqual(['this is **important']);
  });

  it('renders every prefix of an answer without throwing and within the width', () => {
    const answer = [
      '# Fix',
      'The **retry policy** was `maximumAttempts: 1`, see [docs](https://x.io).',
      '> note',
      '- a\n  - b\n1. c',
      '| k | v |\n|---|---|\n| x | y |',
      '```ts\nconst retry = { maximumAttempts: 3 };\n```',
      '---',
    ].join('\n\n');
    for (let end = 0; end <= answer.length; end++) {
      expect(widest(shown(answer.slice(0, end), 20))).toBeLessThanOrEqual(20);
    }
  });
});
