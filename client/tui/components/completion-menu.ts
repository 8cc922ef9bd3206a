import pc from 'picocolors';
import {
  applyCompletion,
  completionQueryAt,
  rankCommands,
  rankFiles,
  type CompletionQuery,
} from '../input/completions.js';
import type { PromptBuffer } from '../input/prompt-buffer.js';
import type { SlashCommandChoice } from '../input/slash-command-list.js';

/** What the menu above the prompt offers for the word at the cursor: `@` files, `/` commands. */
export interface CompletionMenu {
  query: CompletionQuery;
  /** What a pick puts in place of the word (a path, a command name). */
  picks: string[];
  /** How each row reads. */
  labels: string[];
}

/** The menu for the draft, or undefined when the cursor is in no `@` or `/` word, or nothing matches. */
export function completionMenu(
  buffer: PromptBuffer,
  sources: { files: readonly string[]; commands: readonly SlashCommandChoice[] },
): CompletionMenu | undefined {
  const query = completionQueryAt(buffer);
  if (!query) return undefined;
  if (query.kind === 'file') {
    const picks = rankFiles(sources.files, query.text);
    return picks.length ? { query, picks, labels: picks.map((path) => `@${path}`) } : undefined;
  }
  const commands = rankCommands(sources.commands, query.text, 8);
  if (!commands.length) return undefined;
  return {
    query,
    picks: commands.map((command) => command.name),
    labels: commands.map((command) => `/${command.name}  ${pc.dim(command.description)}`),
  };
}

/** The draft with the menu's `index`th pick in place of the word. */
export function pickCompletion(buffer: PromptBuffer, menu: CompletionMenu, index: number): PromptBuffer {
  return applyCompletion(buffer, menu.query, menu.picks[Math.min(index, menu.picks.length - 1)]);
}

/** The menu's lines, the chosen row marked. */
export function completionLines(menu: CompletionMenu, index: number, width: number): string[] {
  return [
    ...menu.labels.map((label, at) => {
      const row = label.length > width - 4 ? `${label.slice(0, width - 5)}…` : label;
      return at === index ? `${pc.cyan('›')} ${pc.inverse(row)}` : `  ${row}`;
    }),
    pc.dim('  ↑↓ choose · tab or enter picks · esc closes'),
  ];
}
