import type { createEmphasize } from 'emphasize';
import { color, type Style } from './palette.js';

type Emphasize = ReturnType<typeof createEmphasize>;

let emphasize: Emphasize | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the grammars (highlight.js's common ones, ~300 KB of code) apart from the first screen,
 * which does not wait for them: code shows uncoloured until they are in, then is drawn again.
 */
export function loadHighlighter(): Promise<void> {
  loading ??= import('emphasize').then(({ common, createEmphasize }) => {
    emphasize = createEmphasize(common);
  });
  return loading;
}

/** Whether code is highlighted yet (`loadHighlighter` has finished): lines drawn before are drawn again. */
export function highlighterReady(): boolean {
  return emphasize !== undefined;
}

/**
 * A style that keeps each line self-contained: a comment or string spanning lines is closed at
 * each line's end and reopened on the next, so lines can be cut, prefixed or printed apart.
 */
function eachLine(style: Style): Style {
  const paint = (line: string) => (line === '' ? '' : style(line));
  return (text) => (text.includes('\n') ? text.split('\n').map(paint).join('\n') : paint(text));
}

// Short on purpose: emphasize walks the whole sheet for every node it paints, so each class here
// costs time on every token (measured: its 40-class default sheet triples the time of this one).
const sheet: Record<string, Style> = {
  keyword: color.magenta,
  built_in: color.cyan,
  type: color.yellow,
  literal: color.yellow,
  number: color.yellow,
  string: color.green,
  comment: color.gray,
  title: color.blue,
  attr: color.cyan,
  addition: color.green,
  deletion: color.red,
};
const lineSafeSheet = Object.fromEntries(Object.entries(sheet).map(([name, style]) => [name, eachLine(style)]));

/**
 * Blocks highlighted lately: while an answer streams it is rendered again and again, and only its
 * last block changes. Oldest out first.
 */
const recent = new Map<string, string[]>();
const RECENT_LIMIT = 100;

/** The grammar name or alias a fence's info string names (` ```ts title="x" ` is `ts`), if known. */
function knownLanguage(highlighter: Emphasize, info: string | undefined): string | undefined {
  const language = info?.trim().split(/\s+/)[0].toLowerCase();
  if (!language) return undefined;
  return highlighter.registered(language) ? language : undefined;
}

/**
 * `code` in terminal colours, one string per line, for a language emphasize knows (by name or
 * alias: `typescript`, `ts`), once `loadHighlighter` has loaded them. Unknown or missing languages
 * come back uncoloured: guessing the language costs too much to do while an answer streams.
 */
export function highlightCode(code: string, language: string | undefined): string[] {
  const highlighter = emphasize;
  const known = highlighter && knownLanguage(highlighter, language);
  if (!highlighter || !known) return code.split('\n');
  const key = `${known}\n${code}`;
  let lines = recent.get(key);
  if (!lines) {
    lines = highlighter.highlight(known, code, lineSafeSheet).value.split('\n');
    if (recent.size >= RECENT_LIMIT) recent.delete(recent.keys().next().value as string);
    recent.set(key, lines);
  }
  return lines;
}
