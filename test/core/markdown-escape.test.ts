import { describe, expect, it } from 'vitest';
import { escapeMarkdown, escapeMarkdownInline } from '../../core/text/markdown-escape.js';

describe('escapeMarkdown', () => {
  it('escapes emphasis, code, links and html so a glob pattern shows as typed', () => {
    expect(escapeMarkdown('**/*.md')).toBe('\\*\\*/\\*.md');
    expect(escapeMarkdown('a_b `c` [d](e) <b> #1 ~x~ |t|')).toBe(
      'a\\_b \\`c\\` \\[d\\](e) \\<b\\> \\#1 \\~x\\~ \\|t\\|',
    );
    expect(escapeMarkdown('C:\\dir')).toBe('C:\\\\dir');
  });

  it('escapes what starts a list, a quote or a heading at the start of each line, and only there', () => {
    expect(escapeMarkdown('- one\n+ two\n  3. three\n10) ten\n---\n> quote')).toBe(
      '\\- one\n\\+ two\n  3\\. three\n10\\) ten\n\\---\n\\> quote',
    );
    expect(escapeMarkdown('a - b + c 1. d')).toBe('a - b + c 1. d');
  });

  it('leaves plain text alone', () => {
    expect(escapeMarkdown('fix the login page (see issue 12).')).toBe('fix the login page (see issue 12).');
  });
});

describe('escapeMarkdownInline', () => {
  it('puts the text on one line, so it cannot start a block', () => {
    expect(escapeMarkdownInline('  two\n\n- lines  ')).toBe('two - lines');
  });
});
