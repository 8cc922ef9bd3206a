import { describe, expect, it } from 'vitest';
import { capOutput } from '../../../client/tui/render/capped-output.js';

describe('capOutput', () => {
  it('keeps the first lines and counts the rest', () => {
    const output = Array.from({ length: 25 }, (_, index) => `test ${index + 1} passed`).join('\n');
    expect(capOutput(output, 10)).toEqual({
      lines: Array.from({ length: 10 }, (_, index) => `test ${index + 1} passed`),
      hidden: 15,
    });
  });

  it('removes colours and cursor codes', () => {
    const output = '\x1b[32m✓\x1b[39m ok\n\x1b[2K\x1b[1Gdone\x07\n\x1b]8;;https://x.io\x07link\x1b]8;;\x07';
    expect(capOutput(output, 10).lines).toEqual(['✓ ok', 'done', 'link']);
  });

  it('shows a line redrawn with carriage returns in its final state', () => {
    expect(capOutput('downloading 10%\rdownloading 55%\rdownloading 100%\r\nunpacked\n', 10)).toEqual({
      lines: ['downloading 100%', 'unpacked'],
      hidden: 0,
    });
    expect(capOutput('\r\x1b[Kwaiting...\r\x1b[Kdone', 10).lines).toEqual(['done']);
  });

  it('expands tabs to the next multiple of eight columns', () => {
    expect(capOutput('a\tb\nname\tsize', 10).lines).toEqual(['a       b', 'name    size']);
  });

  it('does not count a final newline as a line', () => {
    expect(capOutput('one\ntwo\n', 1)).toEqual({ lines: ['one'], hidden: 1 });
    expect(capOutput('', 5)).toEqual({ lines: [], hidden: 0 });
  });
});
