import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';
import { importSession, parseSessionExport } from '../services/session-export.js';

/** `loom import <file>`: a session written by `loom export`, stored as a new session. */
export async function importCommand(
  context: ClientContext,
  file: string,
  options: { json?: boolean; dir?: string },
): Promise<number> {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  const exported = parseSessionExport(text, path);
  const directory = options.dir ? resolve(options.dir) : exported.info.directory;
  if (options.dir && !(existsSync(directory) && statSync(directory).isDirectory())) {
    throw new InputError(`--dir ${directory} is not a folder.`);
  }
  const sessionId = await importSession(context.store, exported, {
    now: Date.now(),
    random: Math.random,
    directory,
    host: context.hostId,
  });
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ sessionId })}\n`);
    return 0;
  }
  process.stdout.write(`${sessionId}\n`);
  context.report(
    `Imported "${exported.info.title}" (${exported.messages.length} messages) as ${sessionId}, in ${directory}. \`loom resume ${sessionId} …\` continues it.`,
  );
  return 0;
}
