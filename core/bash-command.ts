/**
 * Just enough of the shell's grammar to ask permission per command, as OpenCode does with
 * tree-sitter: where one command ends, what its words are, and which of them are paths. Quotes,
 * `$(…)`, `${…}`, backticks, subshells, comments and heredocs are understood well enough that the
 * `&&` or `;` inside them does not split a command.
 */

interface Heredoc {
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
function skipSingle(line: string, index: number): number {
  const end = line.indexOf("'", index);
  return end < 0 ? line.length : end + 1;
}

/** After the closing `'` of `$'…'`, where a backslash escapes (`$'it\'s'`). */
function skipAnsi(line: string, index: number): number {
  while (index < line.length) {
    if (line[index] === '\\') index += 2;
    else if (line[index] === "'") return index + 1;
    else index++;
  }
  return line.length;
}

/** After the closing `"`; `$(…)`, `${…}` and backticks inside may hold quotes of their own. */
function skipDouble(line: string, index: number): number {
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
function skipBacktick(line: string, index: number): number {
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
function heredocAt(line: string, index: number): { heredoc: Heredoc; end: number } | undefined {
  if (line[index + 1] !== '<' || line[index + 2] === '<') return undefined;
  let cursor = index + 2;
  const stripTabs = line[cursor] === '-';
  if (stripTabs) cursor++;
  while (line[cursor] === ' ' || line[cursor] === '\t') cursor++;
  const { delimiter, end } = heredocWord(line, cursor);
  return end === cursor ? undefined : { heredoc: { delimiter, stripTabs }, end };
}

/** After the bodies of `heredocs`, which start at `index` (just after a newline). */
function skipHeredocBodies(line: string, index: number, heredocs: Heredoc[]): number {
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
function scan(line: string, index: number, close?: ')' | '}', cuts?: Cut[]): number {
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
      if (char === '&' && (previous === '>' || previous === '<' || next === '>')) index++; // 2>&1, &>file
      else if (char === '|' && previous === '>') index++; // >|file
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

/** The simple commands in a shell line, split at `&&`, `||`, `;`, `|`, `&` and newlines outside quotes, trimmed, empty ones dropped. Subshell/`$(...)` contents need not be parsed, just kept inside the command that contains them. */
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

interface Word {
  /** As written: quotes kept. */
  raw: string;
  /** Quotes and escapes removed. */
  text: string;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const REDIRECT = /(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(?:<<<|<<-|<<|<>|<&|<|>>|>&|>\||>|&>>|&>)/y;

/** The words of a command, redirections and heredoc bodies left out, as tree-sitter's command node has them. */
function words(command: string): Word[] {
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
          c === '`' ? skipBacktick(command, index + 1)
          : c === '$' && command[index + 1] === '(' ? scan(command, index + 2, ')')
          : c === '$' && command[index + 1] === '{' ? scan(command, index + 2, '}')
          : c === '(' ? scan(command, index + 1, ')')
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

const ANSI_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', e: '\x1b', a: '\x07', b: '\b', f: '\f', v: '\v' };

/** The text of a quoted stretch from `start` to `end` (just after the closing quote, if there is one). */
function quoted(command: string, start: number, end: number, quote: string): string {
  return command.slice(start, end > start && command[end - 1] === quote ? end - 1 : end);
}

/** Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline. */
function unescapeDouble(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, char: string) => (char === '\n' ? '' : char));
}

/** The words of one command with quotes removed (simple POSIX-ish tokenizer: single quotes, double quotes with backslash escapes, backslash outside quotes). Leading `VAR=value` assignments are skipped. */
export function commandWords(command: string): string[] {
  return words(command).map((word) => word.text);
}

/**
 * How many words name a command (`git commit`, `npm run dev`); the longest listed prefix wins,
 * and an unlisted command is its first word. As in OpenCode, options count as words.
 */
const ARITY: Record<string, number> = {
  apt: 2, 'apt-get': 2, aws: 3, az: 3, bazel: 2, brew: 2, bundle: 2, 'bundle exec': 3,
  bun: 2, 'bun run': 3, 'bun x': 3, bunx: 2, cargo: 2, 'cargo add': 3, 'cargo run': 3,
  cmake: 2, composer: 2, deno: 2, 'deno task': 3, docker: 2, 'docker builder': 3,
  'docker compose': 3, 'docker container': 3, 'docker image': 3, 'docker network': 3,
  'docker volume': 3, 'docker-compose': 2, dotnet: 2, firebase: 2, flyctl: 2, gcloud: 3, gem: 2,
  gh: 3, git: 2, 'git config': 3, 'git remote': 3, 'git stash': 3, go: 2, gradle: 2, helm: 2,
  kubectl: 2, 'kubectl rollout': 3, mix: 2, mvn: 2, npm: 2, 'npm exec': 3, 'npm init': 3,
  'npm run': 3, 'npm view': 3, npx: 2, nx: 2, pip: 2, pip3: 2, pipenv: 2, 'pipenv run': 3,
  pnpm: 2, 'pnpm dlx': 3, 'pnpm exec': 3, 'pnpm run': 3, pnpx: 2, podman: 2, poetry: 2,
  'poetry run': 3, pulumi: 2, rails: 2, rustup: 2, swift: 2, systemctl: 2, terraform: 2,
  'terraform workspace': 3, turbo: 2, uv: 2, 'uv pip': 3, 'uv run': 3, vercel: 2, yarn: 2,
  'yarn dlx': 3, 'yarn run': 3, 'yarn workspace': 3,
};

/** The "always" pattern for a command: its first N words + " *", N from the arity table; `''` for no command. */
export function alwaysPattern(command: string): string {
  const list = words(command);
  if (list.length === 0) return '';
  let arity = 1;
  for (let length = list.length; length > 0; length--) {
    const known = ARITY[list.slice(0, length).map((word) => word.text).join(' ')];
    if (known !== undefined) {
      arity = known;
      break;
    }
  }
  // Written as in the command, quotes kept, so the pattern matches the command's own text.
  return `${list.slice(0, arity).map((word) => word.raw).join(' ')} *`;
}

const PATH_COMMANDS = new Set([
  'cat', 'cd', 'chgrp', 'chmod', 'chown', 'cp', 'du', 'find', 'head', 'less', 'ln', 'ls', 'mkdir',
  'more', 'mv', 'pushd', 'rm', 'rmdir', 'stat', 'tail', 'tee', 'touch', 'tree', 'truncate', 'unlink',
]);

/**
 * Words of commands that take paths (cd, rm, cp, mv, mkdir, …), minus options, for
 * external-directory checks. Redirection targets are not included, as in OpenCode.
 */
export function pathArguments(command: string): string[] {
  const [name, ...args] = commandWords(command);
  if (name === undefined || !PATH_COMMANDS.has(name)) return [];
  const paths: string[] = [];
  let options = true;
  for (const arg of args) {
    if (options && arg === '--') options = false;
    else if (options && arg.startsWith('-') && arg !== '-') continue;
    else if (arg !== '-') paths.push(arg);
  }
  // chmod's mode and chown's owner come first (`chmod 755 x`, `chmod +x x`), unless given by --reference.
  const modeFirst = (name === 'chmod' || name === 'chown' || name === 'chgrp') && !args.some((arg) => arg.startsWith('--reference'));
  return modeFirst ? paths.slice(1) : paths;
}
