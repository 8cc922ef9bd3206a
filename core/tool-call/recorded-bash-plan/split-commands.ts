/**
 * FROZEN: part of the plan of bash calls in runs recorded before the model activity planned tool
 * calls (see plan.ts). Do not change it; new runs parse lines with activities/permissions/shell.
 *
 * Just enough of the shell's grammar to ask permission per command: where one command ends, what
 * its words are. Quotes, `$(…)`, `${…}`, backticks, subshells, comments and heredocs are
 * understood well enough that the `&&` or `;` inside them does not split a command.
 */

export interface Heredoc {
  delimiter: string;
  stripTabs: boolean;
}

/** A piece of the line to leave out of the command text (`from`..`to`), and whether a command ends there. */
interface Cut {
  from: number;
  to: number;
  split: boolean;
}

const WORD_BREAK = /[\s;&|()<>]/;

/** After the closing `'`. */
export function skipSingle(line: string, index: number): number {
  const end = line.indexOf("'", index);
  return end < 0 ? line.length : end + 1;
}

/** After the closing `'` of `$'…'`, where a backslash escapes (`$'it\'s'`). */
export function skipAnsi(line: string, index: number): number {
  while (index < line.length) {
    if (line[index] === '\\') index += 2;
    else if (line[index] === "'") return index + 1;
    else index++;
  }
  return line.length;
}

/** After the closing `"`; `$(…)`, `${…}` and backticks inside may hold quotes of their own. */
export function skipDouble(line: string, index: number): number {
  while (index < line.length) {
    const char = line[index];
    if (char === '\\') index += 2;
    else if (char === '"') return index + 1;
    else if (char === '$' && line[index + 1] === '(') index = scan(line, index + 2, ')');
    else if (char === '$' && line[index + 1] === '{') index = scan(line, index + 2, '}');
    else if (char === '`') index = skipBacktick(line, index + 1);
    else index++;
  }
  return line.length;
}

/** After the closing backtick. */
export function skipBacktick(line: string, index: number): number {
  while (index < line.length) {
    if (line[index] === '\\') index += 2;
    else if (line[index] === '`') return index + 1;
    else index++;
  }
  return line.length;
}

/** The delimiter of a heredoc whose word starts at `index` (quotes removed), and the index after the word. */
function heredocWord(line: string, index: number): { delimiter: string; end: number } {
  let delimiter = '';
  while (index < line.length && !WORD_BREAK.test(line[index])) {
    const char = line[index];
    if (char === "'" || char === '"') {
      const end = char === "'" ? skipSingle(line, index + 1) : skipDouble(line, index + 1);
      delimiter += line.slice(index + 1, end - 1);
      index = end;
    } else if (char === '\\') {
      delimiter += line[index + 1] ?? '';
      index += 2;
    } else {
      delimiter += char;
      index++;
    }
  }
  return { delimiter, end: index };
}

/** Parses `<<word` / `<<-word` at `index` (on the first `<`); undefined for `<<<` or no word. */
export function heredocAt(line: string, index: number): { heredoc: Heredoc; end: number } | undefined {
  if (line[index + 1] !== '<' || line[index + 2] === '<') return undefined;
  let cursor = index + 2;
  const stripTabs = line[cursor] === '-';
  if (stripTabs) cursor++;
  while (line[cursor] === ' ' || line[cursor] === '\t') cursor++;
  const { delimiter, end } = heredocWord(line, cursor);
  return end === cursor ? undefined : { heredoc: { delimiter, stripTabs }, end };
}

/** After the bodies of `heredocs`, which start at `index` (just after a newline). */
export function skipHeredocBodies(line: string, index: number, heredocs: Heredoc[]): number {
  for (const { delimiter, stripTabs } of heredocs) {
    while (index < line.length) {
      const newline = line.indexOf('\n', index);
      const end = newline < 0 ? line.length : newline;
      const text = line.slice(index, end);
      index = newline < 0 ? line.length : newline + 1;
      if ((stripTabs ? text.replace(/^\t+/, '') : text) === delimiter) break;
    }
  }
  return index;
}

/**
 * Walks from `index` to just after `close` (or the end of the line), stepping over nested
 * quotes and expansions. At the top level (`cuts` given) it records where commands end and which
 * text to drop (comments, line continuations).
 */
export function scan(line: string, index: number, close?: ')' | '}', cuts?: Cut[]): number {
  let heredocs: Heredoc[] = [];
  const cut = (from: number, to: number, split: boolean) => cuts?.push({ from, to, split });
  while (index < line.length) {
    const char = line[index];
    const next = line[index + 1];
    if (char === close) return index + 1;
    if (char === '\\') {
      if (next === '\n') cut(index, index + 2, false);
      index += 2;
    } else if (char === "'") index = skipSingle(line, index + 1);
    else if (char === '"') index = skipDouble(line, index + 1);
    else if (char === '`') index = skipBacktick(line, index + 1);
    else if (char === '$' && next === "'") index = skipAnsi(line, index + 2);
    else if (char === '$' && next === '(') index = scan(line, index + 2, ')');
    else if (char === '$' && next === '{') index = scan(line, index + 2, '}');
    else if (char === '(') index = scan(line, index + 1, ')');
    else if (char === '#' && close !== '}' && (index === 0 || /[\s;&|(]/.test(line[index - 1]))) {
      const newline = line.indexOf('\n', index);
      const end = newline < 0 ? line.length : newline;
      cut(index, end, false);
      index = end;
    } else if (char === '\n') {
      if (heredocs.length > 0) {
        // The bodies belong to the command that opened them; it ends after the last one.
        index = skipHeredocBodies(line, index + 1, heredocs);
        heredocs = [];
        cut(index, index, true);
      } else {
        cut(index, index + 1, true);
        index++;
      }
    } else if (char === ';') {
      cut(index, index + 1, true);
      index++;
    } else if (char === '&' || char === '|') {
      const previous = line[index - 1];
      if (char === '&' && (previous === '>' || previous === '<' || next === '>'))
        index++; // 2>&1, &>file
      else if (char === '|' && previous === '>')
        index++; // >|file
      else {
        const length = next === '&' || next === '|' ? 2 : 1; // &&, ||, |&
        cut(index, index + length, true);
        index += length;
      }
    } else if (char === '<') {
      const found = heredocAt(line, index);
      if (found) heredocs.push(found.heredoc);
      index = found ? found.end : line.startsWith('<<<', index) ? index + 3 : index + 1;
    } else index++;
  }
  return line.length;
}

/**
 * The simple commands in a shell line, split at `&&`, `||`, `;`, `|`, `&` and newlines outside quotes, trimmed, empty
 * ones dropped. Subshell/`$(...)` contents need not be parsed, just kept inside the command that contains them.
 */
export function splitCommands(line: string): string[] {
  const cuts: Cut[] = [];
  scan(line, 0, undefined, cuts);
  const commands: string[] = [];
  let current = '';
  let position = 0;
  for (const { from, to, split } of cuts) {
    current += line.slice(position, from);
    position = to;
    if (split) {
      commands.push(current);
      current = '';
    }
  }
  commands.push(current + line.slice(position));
  return commands.map((command) => command.trim()).filter((command) => command !== '');
}
