import type { PromptBuffer } from './prompt-buffer.js';
import type { SlashCommandChoice } from './slash-command-list.js';

/**
 * What the prompt offers to complete as the person types: `@` mentions of the project's files and
 * folders anywhere a word starts, and `/` commands at the very start of the prompt (where a
 * command must be to run).
 */

/** The word at the cursor that a completion list is for. */
export interface CompletionQuery {
  readonly kind: 'file' | 'command';
  /** What is typed after the `@` or `/`, up to the cursor. */
  readonly text: string;
  /** Where the word (its `@` or `/` included) starts and ends in the buffer: what a pick replaces. */
  readonly start: number;
  readonly end: number;
}

/** How many candidates a list shows, as OpenCode's. */
export const COMPLETION_LIMIT = 10;

/**
 * The completion the cursor is in, if any: a word that starts with `@` at the start of a line or
 * after a space (so `me@example.com` is not one), or a first word that starts with `/`.
 */
export function completionQueryAt(buffer: PromptBuffer): CompletionQuery | undefined {
  const { text, cursor } = buffer;
  let start = cursor;
  while (start > 0 && !/\s/.test(text[start - 1])) start--;
  let end = cursor;
  while (end < text.length && !/\s/.test(text[end])) end++;
  const typed = text.slice(start + 1, cursor);
  if (text[start] === '@' && start < cursor) return { kind: 'file', text: typed, start, end };
  if (text[start] === '/' && start === 0 && cursor > 0) return { kind: 'command', text: typed, start, end };
  return undefined;
}

/**
 * The paths (from `listProjectFiles`: folders end in `/`) that match `query`, best first: those
 * whose path starts with it, then whose name does, then that contain it, then that hold its
 * characters in order (`smts` finds `src/main.ts`); ignoring case. Within each, shallower first,
 * then shorter, then by name. An empty query lists the top of the project.
 */
export function rankFiles(paths: readonly string[], query: string, limit = COMPLETION_LIMIT): string[] {
  const wanted = query.toLowerCase();
  const ranked: { path: string; tier: number; depth: number }[] = [];
  for (const path of paths) {
    const tier = fileTier(path.toLowerCase(), wanted);
    if (tier !== undefined) ranked.push({ path, tier, depth: depthOf(path) });
  }
  ranked.sort(
    (a, b) =>
      a.tier - b.tier ||
      a.depth - b.depth ||
      a.path.length - b.path.length ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
  return ranked.slice(0, limit).map((candidate) => candidate.path);
}

/**
 * The commands that match `query`, best first: by name prefix, then alias prefix, then names that
 * contain it, then names that hold its characters in order; ignoring case, and in the given order
 * within each (the TUI's first).
 */
export function rankCommands(
  commands: readonly SlashCommandChoice[],
  query: string,
  limit = Infinity,
): SlashCommandChoice[] {
  const wanted = query.toLowerCase();
  return commands
    .map((command, index) => ({ command, index, tier: commandTier(command, wanted) }))
    .filter((candidate) => candidate.tier !== undefined)
    .sort((a, b) => a.tier! - b.tier! || a.index - b.index)
    .slice(0, limit)
    .map((candidate) => candidate.command);
}

/**
 * The buffer with `pick` in place of the query's word: `@path ` or `/name `, the cursor after it.
 * A folder (`src/`) gets no space, so the person can go on into it and the list stays open.
 */
export function applyCompletion(buffer: PromptBuffer, query: CompletionQuery, pick: string): PromptBuffer {
  const word = `${query.kind === 'file' ? '@' : '/'}${pick}`;
  const before = buffer.text.slice(0, query.start);
  const after = buffer.text.slice(query.end);
  if (pick.endsWith('/')) return { text: before + word + after, cursor: before.length + word.length };
  // One space after the word: the one already there, else a new one.
  const spaced = /^[ \t]/.test(after) ? word + after : `${word} ${after}`;
  return { text: before + spaced, cursor: before.length + word.length + 1 };
}

function fileTier(path: string, query: string): number | undefined {
  if (path.startsWith(query)) return 0;
  if (nameOf(path).startsWith(query)) return 1;
  if (path.includes(query)) return 2;
  return holdsInOrder(path, query) ? 3 : undefined;
}

function commandTier(command: SlashCommandChoice, query: string): number | undefined {
  const name = command.name.toLowerCase();
  if (name.startsWith(query)) return 0;
  if (command.aliases?.some((alias) => alias.toLowerCase().startsWith(query))) return 1;
  if (name.includes(query)) return 2;
  return holdsInOrder(name, query) ? 3 : undefined;
}

/** The last part of a path, a folder's without its `/`. */
function nameOf(path: string): string {
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

function depthOf(path: string): number {
  let depth = 0;
  for (let index = 0; index < path.length - 1; index++) if (path[index] === '/') depth++;
  return depth;
}

function holdsInOrder(text: string, query: string): boolean {
  let at = 0;
  for (const character of query) {
    at = text.indexOf(character, at);
    if (at === -1) return false;
    at += character.length;
  }
  return true;
}
