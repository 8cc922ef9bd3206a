import type { LoomConfig } from '../core/config/config.js';
import { parseSlashCommand } from '../core/config/command-template.js';
import type { ClientContext } from './context.js';

/**
 * A prompt that looks like `/name` but names no command of the project goes to the model as it is: said, not silent.
 */
export function warnOfUnknownCommand(context: ClientContext, prompt: string, config: LoomConfig): void {
  const slash = parseSlashCommand(prompt);
  const commands = Object.keys(config.command ?? {});
  if (!slash || commands.includes(slash.name)) return;
  const known = commands.length
    ? `; its commands are ${commands.map((name) => `/${name}`).join(', ')}`
    : ', which has none: add one as a file in .loom/command/ or under "command" in loom.json';
  context.report(
    `warning: /${slash.name} is not a command of this project${known}. Sending the prompt to the model as it is.`,
  );
}
