import { Lexer, type Token, type Tokens } from 'marked';
import { renderCodeBlock } from './code-block.js';
import { textWidth } from './columns.js';
import { inlineRuns } from './markdown-inline.js';
import { renderTable } from './markdown-table.js';
import { color, combine, unstyled } from './palette.js';
import { wrapRuns } from './styled-text.js';

const BULLETS = ['•', '◦', '▪'];
const QUOTE_RULE = color.dim('│');

/**
 * Markdown as terminal lines that fit `width` columns, joined with `\n`: headings bold (without
 * their `#`), paragraphs wrapped between words, lists indented under their markers, quotes behind
 * a dim rule, tables aligned, code highlighted. Text cut off mid-way, as while an answer streams
 * (an open code fence, half a table, a lone `**`), renders as far as it goes.
 */
export function renderMarkdown(text: string, width: number): string {
  const columns = Math.max(Math.floor(width), 1);
  let tokens: Token[];
  try {
    tokens = Lexer.lex(text, { gfm: true });
  } catch {
    // Model text must never take the screen down: show it as it came.
    return wrapRuns([{ text, style: unstyled }], columns).join('\n');
  }
  return renderBlocks(tokens, columns, { tight: false, listDepth: 0 }).join('\n');
}

interface Context {
  /** Blocks follow each other without a blank line, as in the items of a tight list. */
  tight: boolean;
  /** How many lists this block sits in: picks the bullet. */
  listDepth: number;
}

function renderBlocks(tokens: readonly Token[], width: number, context: Context): string[] {
  const lines: string[] = [];
  for (const token of tokens) {
    const block = renderBlock(token, Math.max(width, 1), context);
    if (block.length === 0) continue;
    if (lines.length > 0 && !context.tight) lines.push('');
    lines.push(...block);
  }
  return lines;
}

function renderBlock(token: Token, width: number, context: Context): string[] {
  switch (token.type) {
    case 'space':
    case 'def':
    case 'checkbox':
      return [];
    case 'heading':
      return wrapRuns(inlineRuns(token.tokens, headingStyle(token.depth)), width);
    case 'paragraph':
      return wrapRuns(inlineRuns(token.tokens), width);
    case 'text':
      return wrapRuns(token.tokens ? inlineRuns(token.tokens) : [{ text: token.text, style: unstyled }], width);
    case 'code':
      return renderCodeBlock(token.text, token.lang, width);
    case 'blockquote':
      return renderBlocks(token.tokens ?? [], width - 2, { ...context, tight: false }).map((line) =>
        line === '' ? QUOTE_RULE : `${QUOTE_RULE} ${line}`,
      );
    case 'hr':
      return [color.dim('─'.repeat(width))];
    case 'list':
      return renderList(token as Tokens.List, width, context.listDepth);
    case 'table':
      return renderTable(token as Tokens.Table, width);
    case 'html':
      return wrapRuns([{ text: token.text.trimEnd(), style: unstyled }], width);
    default:
      return wrapRuns([{ text: token.raw.trimEnd(), style: unstyled }], width);
  }
}

function headingStyle(depth: number) {
  return depth === 1 ? combine(color.bold, color.underline) : color.bold;
}

/** Items behind their markers (`•`, `3.`, `[✓]`), their wrapped lines and nested lists indented to match. */
function renderList(list: Tokens.List, width: number, depth: number): string[] {
  const first = typeof list.start === 'number' ? list.start : 1;
  // Numbers are right-aligned so that item texts line up past `9.` and `10.`.
  const numberWidth = list.ordered ? `${first + list.items.length - 1}.`.length : 0;
  const lines: string[] = [];
  list.items.forEach((item, index) => {
    if (index > 0 && list.loose) lines.push('');
    const marker = item.task
      ? item.checked
        ? `[${color.green('✓')}]`
        : '[ ]'
      : list.ordered
        ? `${first + index}.`.padStart(numberWidth)
        : BULLETS[depth % BULLETS.length];
    const indent = ' '.repeat(textWidth(marker) + 1);
    const body = renderBlocks(item.tokens, width - indent.length, { tight: !list.loose, listDepth: depth + 1 });
    if (body.length === 0) lines.push(marker);
    body.forEach((line, row) => lines.push(row === 0 ? `${marker} ${line}` : line === '' ? '' : indent + line));
  });
  return lines;
}
