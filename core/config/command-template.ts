/**
 * OpenCode's command template syntax, as text: `/name args` prompts, argument placeholders,
 * `` !`shell` `` substitutions and `@name` references. Running the shell and looking at the disk
 * happen in activities/.
 */

// The name may contain `/` (commands in sub-folders) but not start with it, so `//x` is not a command.
const SLASH_COMMAND = /^\/([\p{L}\p{N}_.:-][\p{L}\p{N}_.:/-]*)(?:\s+([\s\S]*))?$/u;
const ARGUMENT_TOKEN = /\[Image\s+\d+\]|"[^"]*"|'[^']*'|\S+/gi;
// One pass for both, so an argument that happens to contain `$ARGUMENTS` or `$2` is left alone.
// `$0` is not a placeholder; `$10` is the tenth, never `$1` followed by `0`.
const PLACEHOLDER = /\$ARGUMENTS|\$([1-9]\d*)/g;
const SHELL_SUBSTITUTION = /!`([^`]+)`/g;
const AT_REFERENCE = /(?<![\w`])@(\.?[^\s`,.]*(?:\.[^\s`,.]+)*)/g;

/** `/name args…` at the very start of a prompt (name: letters, digits, -, _, ., /, :), else undefined. */
export function parseSlashCommand(prompt: string): { name: string; arguments: string } | undefined {
  const match = SLASH_COMMAND.exec(prompt);
  if (!match) return undefined;
  return { name: match[1], arguments: (match[2] ?? '').trim() };
}

/**
 * OpenCode's argument tokens: a "double quoted" or 'single quoted' string
 * (quotes stripped), `[Image N]`, or a run of non-space characters.
 */
export function tokenizeArguments(args: string): string[] {
  return (args.match(ARGUMENT_TOKEN) ?? []).map((token) => (isQuoted(token) ? token.slice(1, -1) : token));
}

function isQuoted(token: string): boolean {
  return token.length >= 2 && (token[0] === '"' || token[0] === "'") && token.at(-1) === token[0];
}

/**
 * Substitutes arguments into a template: `$1`…`$N` get the tokens ('' when missing) and the
 * highest-numbered placeholder swallows all remaining tokens joined with spaces; `$ARGUMENTS` gets
 * the raw argument string; with neither placeholder present and arguments given, they are appended
 * as "\n\n" + args.
 */
export function applyArguments(template: string, args: string): string {
  const tokens = tokenizeArguments(args);
  let last = 0;
  let placeholders = 0;
  for (const [, position] of template.matchAll(PLACEHOLDER)) {
    placeholders++;
    if (position !== undefined) last = Math.max(last, Number(position));
  }
  if (placeholders === 0) return args.trim() ? `${template}\n\n${args}` : template;
  return template.replace(PLACEHOLDER, (_, position: string | undefined) => {
    if (position === undefined) return args;
    const index = Number(position) - 1;
    if (index >= tokens.length) return '';
    return Number(position) === last ? tokens.slice(index).join(' ') : tokens[index];
  });
}

/** The `` !`command` `` occurrences of a text, in order, with their positions (`end` is exclusive). */
export function shellSubstitutions(text: string): { command: string; start: number; end: number }[] {
  return [...text.matchAll(SHELL_SUBSTITUTION)].map((match) => ({
    command: match[1],
    start: match.index,
    end: match.index + match[0].length,
  }));
}

/**
 * The `@name` references of a text, distinct, in order. As in OpenCode, an `@` after a word
 * character or a backtick is not one (email addresses, `` `@x` ``), and trailing periods and
 * commas are not part of the name. A bare `@` is dropped: OpenCode would resolve it to the project.
 */
export function atReferences(text: string): string[] {
  const names = new Set<string>();
  for (const [, name] of text.matchAll(AT_REFERENCE)) if (name) names.add(name);
  return [...names];
}
