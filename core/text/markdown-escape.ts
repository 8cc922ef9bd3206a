/**
 * Text from users and models (titles, task descriptions, prompts, glob patterns) placed in the
 * Temporal UI's markdown (run summaries and details), so that it shows as typed: a glob such as `src/**`
 * stays a pattern, not the start of bold text. Backslash escapes are what the UI's renderer honours.
 */

/** Characters that mark emphasis, code, links, html, headings or tables anywhere in a line. */
const INLINE = /[\\`*_[\]<>#~|]/g;
/** What starts a list or a thematic break at the start of a line (`>` is escaped everywhere). */
const LINE_START = /^(\s*)([-+]|\d+(?=[.)]))/gm;

/** `text` escaped so that the UI's markdown shows it literally; its line breaks are kept. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(INLINE, '\\$&')
    .replace(LINE_START, (_, indent: string, mark: string) =>
      /\d/.test(mark) ? `${indent}${mark}\\` : `${indent}\\${mark}`,
    );
}

/** `text` on one line (whitespace runs become one space), escaped: for summaries and inline spans. */
export function escapeMarkdownInline(text: string): string {
  return escapeMarkdown(text.replace(/\s+/g, ' ').trim());
}
