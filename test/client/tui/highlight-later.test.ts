import { describe, expect, it } from 'vitest';
import { highlighterReady, loadHighlighter } from '../../../client/tui/render/highlight.js';
import { renderMarkdown } from '../../../client/tui/render/markdown.js';

// The first paint does not wait for the grammars: code shows uncoloured, then in colour once they are in.

describe('code highlighting loaded after the first screen', () => {
  it('draws code uncoloured before the grammars load, and coloured after', async () => {
    const fence = '```ts\nconst answer = 42;\n```';
    expect(highlighterReady()).toBe(false);
    expect(renderMarkdown(fence, 80)).not.toContain('\x1b[3');
    await loadHighlighter();
    expect(highlighterReady()).toBe(true);
    expect(renderMarkdown(fence, 80)).toMatch(/\x1b\[3\dmconst/); // eslint-disable-line no-control-regex
  });
});
