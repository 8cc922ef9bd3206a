import type { LoomConfig } from '../../../core/config/config.js';
import { projectCommands } from '../../slash-commands.js';

/** A command the `/` list offers. */
export interface SlashCommandChoice {
  readonly name: string;
  readonly description: string;
  /** Other names it answers to (`/quit` for `/exit`), as in OpenCode. */
  readonly aliases?: readonly string[];
  /** `tui`: the TUI runs it at once. `project`: a prompt template; picking it inserts `/<name> ` for arguments. */
  readonly source: 'tui' | 'project';
}

/** The TUI's own commands, in the order the `/` list shows them. */
export const TUI_COMMANDS: readonly SlashCommandChoice[] = [
  { name: 'new', aliases: ['clear'], description: 'Start a new session', source: 'tui' },
  { name: 'sessions', aliases: ['resume', 'continue'], description: 'Switch to another session', source: 'tui' },
  {
    name: 'undo',
    description: 'Undo the last turn: its messages and file changes; its prompt comes back to edit',
    source: 'tui',
  },
  { name: 'redo', description: 'Bring back the turn undone last', source: 'tui' },
  { name: 'fork', description: "Start a new session from this one's history", source: 'tui' },
  { name: 'compact', aliases: ['summarize'], description: 'Summarize the session to free its context', source: 'tui' },
  { name: 'diff', description: 'Show the files the session and its subagents changed', source: 'tui' },
  { name: 'export', description: 'Write the session to a file', source: 'tui' },
  { name: 'models', description: 'Pick the model', source: 'tui' },
  { name: 'agents', description: 'Pick the agent', source: 'tui' },
  { name: 'subagents', description: "List this session's subagents and open one", source: 'tui' },
  { name: 'details', description: "Show tool calls' output in full, or short again", source: 'tui' },
  { name: 'thinking', description: "Show the model's thinking, or fold it again", source: 'tui' },
  { name: 'status', description: 'Show where Loom runs: Temporal, the worker, the store', source: 'tui' },
  { name: 'help', description: 'Show the commands and keys', source: 'tui' },
  {
    name: 'exit',
    aliases: ['quit', 'q'],
    description: 'Quit Loom (sessions keep running on the workers)',
    source: 'tui',
  },
];

/**
 * Everything the `/` list offers for a project: the TUI's commands, then the project's (`command`
 * in its config and `.opencode/command/*.md`, as `loadConfig` gathers them), by name. A project
 * command with a TUI command's name or alias is left out: the TUI's would run instead.
 */
export function slashCommandChoices(config: LoomConfig): SlashCommandChoice[] {
  const taken = new Set(TUI_COMMANDS.flatMap((command) => [command.name, ...(command.aliases ?? [])]));
  const project = projectCommands(config)
    .filter((command) => !taken.has(command.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((command): SlashCommandChoice => ({ ...command, source: 'project' }));
  return [...TUI_COMMANDS, ...project];
}
