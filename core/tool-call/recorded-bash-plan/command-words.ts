/**
 * FROZEN: part of the plan of bash calls in runs recorded before the model activity planned tool
 * calls (see plan.ts). Do not change it; new runs parse lines with activities/permissions/shell.
 */
import {
  heredocAt,
  scan,
  skipAnsi,
  skipBacktick,
  skipDouble,
  skipHeredocBodies,
  skipSingle,
  type Heredoc,
} from './split-commands.js';

export interface Word {
  /** As written: quotes kept. */
  raw: string;
  /** Quotes and escapes removed. */
  text: string;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const REDIRECT = /(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(?:<<<|<<-|<<|<>|<&|<|>>|>&|>\||>|&>>|&>)/y;

/** The words of a command, redirections and heredoc bodies left out, as tree-sitter's command node has them. */
export function words(command: string): Word[] {
  const result: Word[] = [];
  let heredocs: Heredoc[] = [];
  let index = 0;
  let skipNext = false; // the next word is a redirection's target
  while (index < command.length) {
    const char = command[index];
    if (char === '\n' && heredocs.length > 0) {
      index = skipHeredocBodies(command, index + 1, heredocs);
      heredocs = [];
      continue;
    }
    if (/\s/.test(char) || (char === '\\' && command[index + 1] === '\n')) {
      index += char === '\\' ? 2 : 1;
      continue;
    }
    if (char === '#' && (index === 0 || /\s/.test(command[index - 1]))) {
      const newline = command.indexOf('\n', index);
      index = newline < 0 ? command.length : newline;
      continue;
    }
    REDIRECT.lastIndex = index;
    const redirect = REDIRECT.exec(command);
    if (redirect) {
      const operator = redirect[0];
      if (operator.endsWith('<<') || operator.endsWith('<<-')) {
        const found = heredocAt(command, index + operator.indexOf('<<'));
        if (found) {
          heredocs.push(found.heredoc);
          index = found.end;
          continue;
        }
      }
      index += operator.length;
      // `2>&1` and `>&-` name a descriptor, not a word that follows.
      if (operator.endsWith('&') && /[\d-]/.test(command[index] ?? '')) {
        while (/[\d-]/.test(command[index] ?? '')) index++;
      } else skipNext = true;
      continue;
    }
    const start = index;
    let text = '';
    while (index < command.length && !/[\s<>]/.test(command[index])) {
      const c = command[index];
      if (c === "'") {
        const end = skipSingle(command, index + 1);
        text += quoted(command, index + 1, end, "'");
        index = end;
      } else if (c === '$' && command[index + 1] === "'") {
        const end = skipAnsi(command, index + 2);
        text += quoted(command, index + 2, end, "'").replace(/\\(.)/gs, (_, e: string) => ANSI_ESCAPES[e] ?? e);
        index = end;
      } else if (c === '"') {
        const end = skipDouble(command, index + 1);
        text += unescapeDouble(quoted(command, index + 1, end, '"'));
        index = end;
      } else if (c === '\\') {
        if (command[index + 1] !== '\n') text += command[index + 1] ?? '';
        index += 2;
      } else {
        // `$(…)`, `${…}`, backticks and subshells stay as written, inner spaces and all.
        const end =
          c === '`'
            ? skipBacktick(command, index + 1)
            : c === '$' && command[index + 1] === '('
              ? scan(command, index + 2, ')')
              : c === '$' && command[index + 1] === '{'
                ? scan(command, index + 2, '}')
                : c === '('
                  ? scan(command, index + 1, ')')
                  : index + 1;
        text += command.slice(index, end);
        index = end;
      }
    }
    if (skipNext) skipNext = false;
    else result.push({ raw: command.slice(start, index), text });
  }
  // Leading `VAR=value` assignments are not the command.
  const first = result.findIndex((word) => !ASSIGNMENT.test(word.raw));
  return first < 0 ? [] : result.slice(first);
}

const ANSI_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  e: '\x1b',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
};

/** The text of a quoted stretch from `start` to `end` (just after the closing quote, if there is one). */
function quoted(command: string, start: number, end: number, quote: string): string {
  return command.slice(start, end > start && command[end - 1] === quote ? end - 1 : end);
}

/** Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline. */
function unescapeDouble(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, char: string) => (char === '\n' ? '' : char));
}

/**
 * The words of one command with quotes removed (simple POSIX-ish tokenizer: single quotes, double quotes with
 * backslash escapes, backslash outside quotes). Leading `VAR=value` assignments are skipped.
 */
export function commandWords(command: string): string[] {
  return words(command).map((word) => word.text);
}
