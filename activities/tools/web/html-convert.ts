import { compile } from 'html-to-text';
import TurndownService from 'turndown';

/** Elements that carry no reading matter; dropped from both markdown and text. */
const NOISE = ['script', 'style', 'meta', 'link', 'noscript'] as const;

const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  hr: '---',
  emDelimiter: '*',
});
turndown.remove([...NOISE]);

/** HTML as markdown: headings, lists, links and code blocks survive; scripts and styles do not. */
export function htmlToMarkdown(html: string): string {
  return turndown.turndown(html).trim();
}

// Compiled once: html-to-text builds a selector decision tree per options object.
const toText = compile({
  wordwrap: false,
  selectors: [
    ...NOISE.map((selector) => ({ selector, format: 'skip' })),
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { ignoreHref: true } },
    // The default renders cells inline, running them together (`NameType`); columns keep them apart.
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false, maxColumnWidth: 80 } },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
  ],
});

/** HTML as plain text: the words of the page, without tags, images or link targets. */
export function htmlToText(html: string): string {
  return toText(html).trim();
}
