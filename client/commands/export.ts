import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';
import { exportSession } from '../services/session-export.js';

/** `loom export <sessionId>`: the session as JSON, in OpenCode's export shape, on stdout or into a file. */
export async function exportCommand(
  context: ClientContext,
  sessionId: string,
  options: { output?: string },
): Promise<number> {
  const exported = await exportSession(context.store, sessionId);
  if (!exported) throw new InputError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`);
  const text = `${JSON.stringify(exported, null, 2)}\n`;
  if (!options.output) {
    process.stdout.write(text);
    return 0;
  }
  const file = resolve(options.output);
  try {
    writeFileSync(file, text);
  } catch (error) {
    throw new InputError(`Cannot write ${file}: ${(error as Error).message}`);
  }
  context.report(`Exported ${sessionId} (${exported.messages.length} messages) to ${file}.`);
  return 0;
}
