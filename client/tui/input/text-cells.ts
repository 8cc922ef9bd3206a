import stringWidth from 'string-width';

/**
 * How the prompt measures text: its lines, clusters (what one press of ← or Backspace steps over) and the
 * terminal cells each takes. Clusters are found by a loop over code points rather than with
 * `Intl.Segmenter`, which on Node 20 takes seconds over a pasted megabyte: a base character with
 * its combining marks, variation selectors, skin tones and tag characters, emoji joined by ZWJ,
 * and pairs of regional indicators (flags). That covers what people type and paste; exotic scripts
 * may step in smaller pieces than a full grapheme segmenter would.
 */

/** The cells a tab takes: drawn as this many spaces, with no tab stops. */
export const TAB_CELLS = 4;

const ZWJ = 0x200d;
const MARK = /\p{M}/u;
const extenders = new Map<number, boolean>();
const widths = new Map<string, number>();
const WIDTH_CACHE_LIMIT = 4096;

/**
 * The text as the prompt holds it: line breaks as `\n` (a paste arrives with `\r`), and no control
 * characters but `\n` and tab, so no pasted escape sequence reaches the terminal when drawn.
 */
export function normalizeText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/** The offset where the line holding `offset` starts. */
export function lineStartOf(text: string, offset: number): number {
  return offset <= 0 ? 0 : text.lastIndexOf('\n', offset - 1) + 1;
}

/** The offset where the line holding `offset` ends (its `\n`, or the end of the text). */
export function lineEndOf(text: string, offset: number): number {
  const end = text.indexOf('\n', offset);
  return end === -1 ? text.length : end;
}

/** The end (exclusive) of the cluster that starts at `index`. */
export function clusterEnd(text: string, index: number): number {
  if (index >= text.length) return text.length;
  const first = text.codePointAt(index)!;
  let end = index + codeUnits(first);
  if (first === 0x0a) return end;
  if (isRegionalIndicator(first) && end < text.length && isRegionalIndicator(text.codePointAt(end)!)) end += 2;
  while (end < text.length) {
    const next = text.codePointAt(end)!;
    if (next === ZWJ) {
      end += 1;
      if (end < text.length && text.charCodeAt(end) !== 0x0a) end += codeUnits(text.codePointAt(end)!);
    } else if (isExtender(next)) {
      end += codeUnits(next);
    } else {
      break;
    }
  }
  return end;
}

/** The start of the cluster that ends at `index` (0 at the start of the text). */
export function clusterStart(text: string, index: number): number {
  if (index <= 0) return 0;
  if (text.charCodeAt(index - 1) === 0x0a) return index - 1;
  // Walking forward from the line's start finds the last cluster's start; on a long line, from a
  // little way back (clusters are short).
  const lineStart = lineStartOf(text, index);
  let from = index - lineStart <= 1024 ? lineStart : index - 64;
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from--;
  let start = from;
  for (let end = clusterEnd(text, from); end < index; end = clusterEnd(text, end)) start = end;
  return start;
}

/** The terminal cells the cluster `text[start, end)` takes. */
export function clusterCells(text: string, start: number, end: number): number {
  if (end - start === 1) {
    const code = text.charCodeAt(start);
    if (code >= 0x20 && code < 0x7f) return 1;
    if (code === 0x09) return TAB_CELLS;
  }
  const cluster = text.slice(start, end);
  let cells = widths.get(cluster);
  if (cells === undefined) {
    cells = stringWidth(cluster);
    if (widths.size >= WIDTH_CACHE_LIMIT) widths.clear();
    widths.set(cluster, cells);
  }
  return cells;
}

/** `text[start, end)` as the terminal should draw it (tabs as spaces). */
export function drawnText(text: string, start: number, end: number): string {
  const slice = text.slice(start, end);
  return slice.includes('\t') ? slice.replaceAll('\t', ' '.repeat(TAB_CELLS)) : slice;
}

function isExtender(codePoint: number): boolean {
  if (codePoint < 0x300) return false;
  if ((codePoint >= 0xfe00 && codePoint <= 0xfe0f) || (codePoint >= 0x1f3fb && codePoint <= 0x1f3ff)) return true;
  if (codePoint >= 0xe0020 && codePoint <= 0xe01ef) return true;
  let extender = extenders.get(codePoint);
  if (extender === undefined) {
    extender = MARK.test(String.fromCodePoint(codePoint));
    extenders.set(codePoint, extender);
  }
  return extender;
}

function isRegionalIndicator(codePoint: number): boolean {
  return codePoint >= 0x1f1e6 && codePoint <= 0x1f1ff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function codeUnits(codePoint: number): number {
  return codePoint > 0xffff ? 2 : 1;
}
