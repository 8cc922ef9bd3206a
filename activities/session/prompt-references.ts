import { stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { atReferences } from '../../core/config/command-template.js';
import { ATTACHMENT_TYPES } from '../tools/read.js';

export type Reference =
  | { kind: 'file'; name: string; path: string; mime: string }
  | { kind: 'directory'; name: string; path: string }
  | { kind: 'agent'; name: string };

/**
 * Resolves the `@name` references of a prompt, in the order they appear: `~/…` from `home`,
 * anything else relative to `directory`. An existing file or directory wins over an agent of the
 * same name; a name that is neither is dropped, as in OpenCode.
 */
export async function resolveReferences(
  text: string,
  options: { directory: string; home: string; agents: string[] },
): Promise<Reference[]> {
  const agents = new Set(options.agents);
  const resolved = await Promise.all(
    atReferences(text).map(async (name): Promise<Reference | undefined> => {
      const path = name.startsWith('~/') ? join(options.home, name.slice(2)) : resolve(options.directory, name);
      const info = await stat(path).catch(() => undefined);
      if (info?.isDirectory()) return { kind: 'directory', name, path };
      if (info)
        return { kind: 'file', name, path, mime: ATTACHMENT_TYPES[extname(path).toLowerCase()] ?? 'text/plain' };
      return agents.has(name) ? { kind: 'agent', name } : undefined;
    }),
  );
  return resolved.filter((reference) => reference !== undefined);
}

/** Paths written plainly in a prompt: `calc.py`, `src/app.ts`, `./README.md`. */
const PLAIN_PATH = /(?<![\w@/.-])(?:\.\/)?((?:[\w-]+\/)*[\w.-]*\w\.[A-Za-z0-9]{1,8})(?![\w/-])/g;
/** A small model is given at most this many files, each at most this large. */
const MAX_NAMED_FILES = 3;
const MAX_NAMED_BYTES = 32 * 1024;

/**
 * The project's text files a prompt names plainly (not with `@`), for a small model, which guesses
 * what a file holds rather than reading it: at most three, each at most 32 KiB, inside the project.
 * Names that are not such files (`calc.divide`, `v1.2`) are not files and are left alone.
 */
export async function namedFileReferences(text: string, directory: string, known: Reference[]): Promise<Reference[]> {
  const taken = new Set(known.map((reference) => ('path' in reference ? reference.path : '')));
  const found: Reference[] = [];
  for (const [, name] of text.matchAll(PLAIN_PATH)) {
    if (found.length >= MAX_NAMED_FILES) break;
    const path = resolve(directory, name);
    if (taken.has(path) || !path.startsWith(`${directory}/`) || ATTACHMENT_TYPES[extname(path).toLowerCase()]) continue;
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile() || info.size > MAX_NAMED_BYTES) continue;
    taken.add(path);
    found.push({ kind: 'file', name, path, mime: 'text/plain' });
  }
  return found;
}
