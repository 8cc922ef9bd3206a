import type { Token } from 'marked';
import { color, combine, unstyled, type Style } from './palette.js';
import type { Run } from './styled-text.js';

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Character references marked leaves in text (`&amp;`, `&#39;`) as the characters they stand for. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (reference: string, name: string) => {
    if (name[0] !== '#') return NAMED_ENTITIES[name.toLowerCase()] ?? reference;
    const codePoint = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : reference;
  });
}

/**
 * Inline markdown (the tokens of a paragraph, heading, list item or table cell) as styled runs:
 * bold, italic, struck through, code in its own colour, links as `text (url)`. A soft line break
 * is a space and a hard one (`br`) a new line, as a browser would show them.
 */
export function inlineRuns(tokens: readonly Token[] | undefined, style: Style = unstyled): Run[] {
  const runs: Run[] = [];
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'text':
        if (token.tokens) runs.push(...inlineRuns(token.tokens, style));
        else runs.push({ text: decodeEntities(token.text).replace(/\n/g, ' '), style });
        break;
      case 'escape':
      case 'html':
        runs.push({ text: token.text.replace(/\n/g, ' '), style });
        break;
      case 'strong':
        runs.push(...inlineRuns(token.tokens, combine(style, color.bold)));
        break;
      case 'em':
        runs.push(...inlineRuns(token.tokens, combine(style, color.italic)));
        break;
      case 'del':
        runs.push(...inlineRuns(token.tokens, combine(style, color.strikethrough)));
        break;
      case 'codespan':
        runs.push({ text: token.text.replace(/\n/g, ' '), style: combine(style, color.yellow) });
        break;
      case 'br':
        runs.push({ text: '\n', style });
        break;
      case 'link':
        runs.push(...linkRuns(token.tokens, token.href, style));
        break;
      case 'image':
        runs.push({ text: token.text || 'image', style: combine(style, color.italic) });
        runs.push({ text: ` (${token.href})`, style: color.dim });
        break;
      case 'checkbox':
        break;
      default:
        runs.push({ text: 'text' in token && typeof token.text === 'string' ? token.text : token.raw, style });
    }
  }
  return runs;
}

/** A link's text, then its address dimmed unless the text already says it. */
function linkRuns(tokens: readonly Token[] | undefined, href: string, style: Style): Run[] {
  const textRuns = inlineRuns(tokens, combine(style, combine(color.blue, color.underline)));
  const text = textRuns.map((run) => run.text).join('');
  const address = href.replace(/^mailto:/, '');
  if (text === href || text === address) return textRuns;
  return [...textRuns, { text: ` (${href})`, style: color.dim }];
}
