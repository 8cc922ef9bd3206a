import { stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { atReferences } from '../core/command-template.js';
import { ATTACHMENT_TYPES } from './tools/read.js';

export type Reference =
  | { kind: 'file'; name: string; path: string; mime: string }
  | { kind: 'directory'; name: string; path: string }
  | { kind: 'agent'; name: string };

/**
 * Resolves the `@name` references of a prompt, in the order they appear: `~/…` from `home`,
 * anything else relative to `directory`. An existing file or directory wins over an agent of the
 * same name; a name that is neither is dropped, as in OpenCode.
 */
export async function resolveReferences(text: string, options: { directory: string; home: string; agents: string[] }): Promise<Reference[]> {
  const agents = new Set(options.agents);
  const resolved = await Promise.all(
    atReferences(text).map(async (name): Promise<Reference | undefined> => {
      const path = name.startsWith('~/') ? join(options.home, name.slice(2)) : resolve(options.directory, name);
      const info = await stat(path).catch(() => undefined);
      if (info?.isDirectory()) return { kind: 'directory', name, path };
      if (info) return { kind: 'file', name, path, mime: ATTACHMENT_TYPES[extname(path).toLowerCase()] ?? 'text/plain' };
      return agents.has(name) ? { kind: 'agent', name } : undefined;
    }),
  );
  return resolved.filter((reference) => reference !== undefined);
}
