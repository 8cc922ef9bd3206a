import type { LoomConfig } from '../core/config/config.js';
import { parseSlashCommand } from '../core/config/command-template.js';
import { commandsOf } from '../core/config/built-in-commands.js';
import type { ClientContext } from './context.js';

/** The project's commands (`command` in its config, with `.opencode/command/*.md` as `loadConfig` folds them in), and Loom's built-in `/init`. */
export function projectCommands(config: LoomConfig): { name: string; description: string }[] {
  return Object.entries(commandsOf(config)).map(([name, command]) => ({
    name,
    description: command.description ?? '',
  }));
}

/**
 * A prompt that looks like `/name` but names no command of the project goes to the model as it is: said, not silent.
 */
export function warnOfUnknownCommand(context: ClientContext, prompt: string, config: LoomConfig): void {
  const slash = parseSlashCommand(prompt);
  if (!slash || projectCommands(config).some((command) => command.name === slash.name)) return;
  // The project's own commands: Loom's built-in `/init` is not what the person is missing.
  const own = Object.keys(config.command ?? {});
  const known = own.length
    ? `; its commands are ${own.map((name) => `/${name}`).join(', ')}`
    : ', which has none: add one as a file in .loom/command/ or under "command" in loom.json';
  context.report(
    `warning: /${slash.name} is not a command of this project${known}. Sending the prompt to the model as it is.`,
  );
}
