import pc from 'picocolors';
import type { Part } from '../../../core/records/part.js';
import { renderMarkdown } from '../render/markdown.js';
import type { Entry } from './transcript-model.js';
import { toolLines, type ToolLineOptions } from './tool-lines.js';
import { formatElapsed } from './numbers.js';
import { plural } from '../../render/quantities.js';

export interface EntryOptions extends ToolLineOptions {
  /** Reasoning shown in full rather than folded to one line. */
  thinking: boolean;
  /** When the user message this answer belongs to was sent: the turn's footer says how long it took. */
  turnStartedAt?: number;
  /** This is the last message of a turn that has ended: it carries the turn's footer. */
  endsTurn: boolean;
}

/** A message of the transcript as lines of the terminal, with a blank line before it. */
export function entryLines(entry: Entry, options: EntryOptions): string[] {
  const { message } = entry;
  if (message.role === 'user') return userLines(entry.parts, options.width);
  const lines: string[] = [];
  for (const part of entry.parts) lines.push(...partLines(part, options));
  // As in OpenCode, once under a message that delegated: where the subagents' sessions are.
  if (entry.parts.some((part) => part.type === 'tool' && part.tool === 'task'))
    lines.push(pc.dim('  ctrl+x → opens the subagent · ctrl+x ↓ lists them · ctrl+x ↑ comes back'));
  if (message.error && message.error.name !== 'MessageAbortedError') {
    lines.push('', ...wrapPlain(`✗ ${message.error.name}: ${message.error.message}`, options.width - 2).map(red));
  }
  if (options.endsTurn) {
    const took =
      options.turnStartedAt && message.time.completed
        ? ` · ${formatElapsed(message.time.completed - options.turnStartedAt)}`
        : '';
    const interrupted = message.error?.name === 'MessageAbortedError' ? ' · interrupted' : '';
    const mark = interrupted ? pc.dim('▣') : pc.magenta('▣');
    lines.push('', `${mark} ${pc.dim(`${message.agent} · ${message.model}${took}${interrupted}`)}`);
  }
  return lines.length ? ['', ...lines] : [];
}

function userLines(parts: Part[], width: number): string[] {
  const text = parts
    .filter((part): part is Extract<Part, { type: 'text' }> => part.type === 'text' && !part.synthetic)
    .map((part) => part.text)
    .join('\n');
  const files = parts.flatMap((part) => (part.type === 'file' ? [part.filename ?? part.url] : []));
  const body = wrapPlain(text, width - 3);
  const shown = body.length > 40 ? [...body.slice(0, 40), pc.dim(`… ${plural(body.length - 40, 'more line')}`)] : body;
  const lines = shown.map((line) => `${pc.cyan('┃')} ${line}`);
  for (const file of files) lines.push(`${pc.cyan('┃')} ${pc.inverse(' file ')} ${file}`);
  return lines.length ? ['', ...lines] : [];
}

function partLines(part: Part, options: EntryOptions): string[] {
  switch (part.type) {
    case 'text':
      if (part.synthetic || !part.text.trim()) return [];
      return indent(renderMarkdown(part.text.trim(), options.width - 2).split('\n'), '  ');
    case 'reasoning': {
      const text = part.text.replace(/\[REDACTED\]/g, '').trim();
      if (!text) return [];
      if (!options.thinking) {
        const count = text.split('\n').length;
        return [pc.dim(pc.italic(`  ▸ Thinking (${plural(count, 'line')}; ctrl+t shows it)`))];
      }
      return [
        pc.dim(pc.italic('  Thinking:')),
        ...wrapPlain(text, options.width - 4).map((line) => pc.dim(`  │ ${line}`)),
      ];
    }
    case 'tool':
      return indent(toolLines(part, { ...options, width: options.width - 2 }), '  ');
    case 'compaction':
      return [pc.dim(`── Compaction ${'─'.repeat(Math.max(options.width - 15, 0))}`)];
    case 'patch':
      return [pc.yellow(`  ± ${plural(part.files.length, 'file')} changed`)];
    case 'subtask':
      return [pc.dim(`  ↳ subtask @${part.agent}: ${part.description}`)];
    default:
      return [];
  }
}

/** Plain text wrapped at `width` columns (words kept whole where they fit). */
export function wrapPlain(text: string, width: number): string[] {
  const out: string[] = [];
  const limit = Math.max(width, 10);
  for (const raw of text.split('\n')) {
    let line = raw.replace(/\t/g, '  ');
    while (line.length > limit) {
      const space = line.lastIndexOf(' ', limit);
      const cut = space > limit / 2 ? space : limit;
      out.push(line.slice(0, cut));
      line = line.slice(cut).replace(/^ /, '');
    }
    out.push(line);
  }
  return out;
}

function indent(lines: string[], by: string): string[] {
  return lines.map((line) => (line ? by + line : line));
}

function red(line: string): string {
  return pc.red(line);
}
