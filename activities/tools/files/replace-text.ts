import { ToolError } from '../running/tool-handler.js';

/**
 * Replaces `oldString` in `content`. An exact match is used when there is one; otherwise a block
 * of lines that matches once leading and trailing whitespace is ignored (models often get
 * indentation slightly wrong); otherwise the same without the line numbers of read's output,
 * which small models copy. Zero or several matches (without `replaceAll`) are refused.
 */
export function replaceText(
  content: string,
  oldString: string,
  newString: string,
  replaceAll: boolean,
  path: string,
): string {
  let matches = matchesOf(content, oldString);
  // Lines copied from read's output with their numbers (`     6\treturn a - b`): the numbers are not the file's.
  const unnumbered = matches.length === 0 ? withoutLineNumbers(oldString) : undefined;
  if (unnumbered !== undefined) {
    matches = matchesOf(content, unnumbered);
    newString = withoutLineNumbers(newString) ?? newString;
  }
  if (matches.length === 0) {
    throw new ToolError(
      `oldString was not found in ${path}. It must match the file exactly, including whitespace and indentation; read the file again and copy the text from it.`,
    );
  }
  if (matches.length > 1 && !replaceAll) {
    throw new ToolError(
      `oldString appears ${matches.length} times in ${path}. Include more surrounding lines to make it unique, or set replaceAll to change every occurrence.`,
    );
  }
  let result = '';
  let from = 0;
  for (const match of matches) {
    result += content.slice(from, match.index) + newString;
    from = match.index + match.text.length;
  }
  return result + content.slice(from);
}

function matchesOf(content: string, oldString: string): Match[] {
  const exact = exactMatches(content, oldString);
  return exact.length > 0 ? exact : trimmedLineMatches(content, oldString);
}

/** The text without the line numbers read puts before each line, when every line has one. */
function withoutLineNumbers(text: string): string | undefined {
  const lines = text.split('\n');
  const numbered = /^\s*\d+(?:\t| {1,2}(?=\S| ))/;
  if (!lines.some((line) => numbered.test(line)) || !lines.every((line) => line.trim() === '' || numbered.test(line)))
    return undefined;
  return lines.map((line) => line.replace(numbered, '')).join('\n');
}

interface Match {
  index: number;
  text: string;
}

function exactMatches(content: string, needle: string): Match[] {
  const matches: Match[] = [];
  for (let index = content.indexOf(needle); index >= 0; index = content.indexOf(needle, index + needle.length)) {
    matches.push({ index, text: needle });
  }
  return matches;
}

function trimmedLineMatches(content: string, needle: string): Match[] {
  const wanted = needle.replace(/\r\n/g, '\n').split('\n');
  if (wanted.at(-1)?.trim() === '') wanted.pop();
  if (wanted.length === 0 || wanted.every((line) => line.trim() === '')) return [];
  const lines = content.split('\n');
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const matches: Match[] = [];
  for (let first = 0; first + wanted.length <= lines.length; first++) {
    const fits = wanted.every((line, i) => lines[first + i].replace(/\r$/, '').trim() === line.trim());
    if (!fits) continue;
    const last = first + wanted.length - 1;
    const end = starts[last] + lines[last].replace(/\r$/, '').length;
    matches.push({ index: starts[first], text: content.slice(starts[first], end) });
    first = last;
  }
  return matches;
}
