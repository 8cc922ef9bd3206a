import { parsePatch, structuredPatch, type StructuredPatchHunk } from 'diff';
import { expandTabs, truncateToWidth } from './columns.js';
import { color, unstyled, type Style } from './palette.js';

/** How wide a diff may be drawn and how many lines it may take. */
export interface DiffOptions {
  width: number;
  /** The most lines to return, counting the `… N more lines` line that stands for the rest. */
  maxLines?: number;
}

const CONTEXT_LINES = 3;
const TAB_SIZE = 4;

function hunksOf(before: string, after: string, context: number): StructuredPatchHunk[] {
  return structuredPatch('', '', before, after, undefined, undefined, { context }).hunks;
}

/** How many lines a change adds and removes, as `git diff --stat` counts them. */
export function diffStats(before: string, after: string): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const hunk of hunksOf(before, after, 0)) {
    for (const line of hunk.lines) {
      if (line[0] === '+') additions++;
      else if (line[0] === '-') deletions++;
    }
  }
  return { additions, deletions };
}

/**
 * A unified diff of `before` and `after` as terminal lines: the old and new line numbers in a dim
 * gutter, removed lines red with `-`, added lines green with `+`, three lines of context, and a
 * dim `⋯` between hunks. Long lines are cut at `width` with `…`; past `maxLines`, a last dim line
 * says how many more there are. No change, no lines.
 */
export function renderDiff(before: string, after: string, options: DiffOptions): string[] {
  return renderHunks(hunksOf(before, after, CONTEXT_LINES), options);
}

/**
 * A unified diff as text (what the edit tools keep and `loom diff` prints) drawn as `renderDiff`
 * draws one, each file headed by its name when there are several.
 */
export function renderUnifiedDiff(text: string, options: DiffOptions): string[] {
  const files = parsePatch(text).filter((file) => file.hunks.length > 0);
  const lines = files.flatMap((file) => [
    ...(files.length > 1 ? [color.bold(file.newFileName?.replace(/^b\//, '') ?? file.oldFileName ?? '')] : []),
    ...renderHunks(file.hunks, { width: options.width }),
  ]);
  return capLines(lines, options.maxLines);
}

function renderHunks(hunks: StructuredPatchHunk[], options: DiffOptions): string[] {
  if (hunks.length === 0) return [];
  const last = hunks[hunks.length - 1];
  const numberWidth = String(Math.max(last.oldStart + last.oldLines, last.newStart + last.newLines) - 1).length;
  const bodyWidth = Math.max(options.width - (numberWidth * 2 + 2), 1);
  const blank = ' '.repeat(numberWidth);

  const line = (oldNumber: string, newNumber: string, body: string, style: Style) =>
    color.dim(`${oldNumber.padStart(numberWidth)} ${newNumber.padStart(numberWidth)} `) +
    style(truncateToWidth(body, bodyWidth));

  const lines: string[] = [];
  hunks.forEach((hunk, index) => {
    if (index > 0) lines.push(color.dim('⋯'.padStart(numberWidth)));
    let oldNumber = hunk.oldStart;
    let newNumber = hunk.newStart;
    for (const patchLine of hunk.lines) {
      const sign = patchLine[0];
      const text = expandTabs(patchLine.slice(1).replace(/\r$/, ''), TAB_SIZE);
      if (sign === '-') lines.push(line(String(oldNumber++), blank, `- ${text}`, color.red));
      else if (sign === '+') lines.push(line(blank, String(newNumber++), `+ ${text}`, color.green));
      else if (sign === ' ') lines.push(line(String(oldNumber++), String(newNumber++), `  ${text}`, unstyled));
      // `\ No newline at end of file` says nothing a reader of the change needs.
    }
  });
  return capLines(lines, options.maxLines);
}

function capLines(lines: string[], maxLines: number | undefined): string[] {
  if (maxLines === undefined || lines.length <= maxLines) return lines;
  if (maxLines < 1) return [];
  const kept = maxLines - 1;
  const more = lines.length - kept;
  return [...lines.slice(0, kept), color.dim(`… ${more} more line${more === 1 ? '' : 's'}`)];
}
