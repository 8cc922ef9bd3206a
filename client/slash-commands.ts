import type { LoomConfig } from '../core/config.js';
import { parseSlashCommand } from '../core/command-template.js';
import type { CliContext } from './context.js';

/**
 * A prompt that looks like `/name` but names no command of the project goes to the model as it is: said, not silent.
 */
export function warnOfUnknownCommand(context: CliContext, prompt: string, config: LoomConfig): void {
  const slash = parseSlashCommand(prompt);
  const commands = Object.keys(config.command ?? {});
  if (!slash || commands.includes(slash.name)) return;
  const known = commands.length
    ? `its commands: ${commands.map((name) => `/${name}`).join(', ')}`
    : 'it has none (see .loom/command/ or "command" in loom.json)';
  context.report(
    `warning: /${slash.name} is not a command of this project (${known}); sending the prompt to the model as it is.`,
  );
}
