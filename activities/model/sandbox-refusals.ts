import type { MessageWithParts } from '../../core/records/message.js';

/**
 * What the sandbox refused the session's bash calls, by their command line (the latest call of a
 * line wins): a call of the same line with `"sandbox": false` asks the person with this reason.
 */
export function sandboxRefusals(history: MessageWithParts[]): Map<string, string> {
  const refusals = new Map<string, string>();
  for (const message of history)
    for (const part of message.parts) {
      if (part.type !== 'tool' || part.tool !== 'bash' || part.state.status !== 'completed') continue;
      const command = (part.state.input as Record<string, unknown>).command;
      const refusal = part.state.metadata?.sandboxRefusal;
      if (typeof command !== 'string') continue;
      if (typeof refusal === 'string') refusals.set(command.trim(), refusal);
      else refusals.delete(command.trim());
    }
  return refusals;
}
