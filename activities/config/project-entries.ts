import { readdirSync } from 'node:fs';

/** Enough to show a small project whole, and the top of a large one. */
const MAX_ENTRIES = 40;
/** Not the project's own content: what tools and package managers keep beside it (hidden names are left out too). */
const SKIPPED = new Set(['node_modules', '__pycache__', 'venv']);

/**
 * The names in a folder (the project's, for a small model's prompt; the nearest to a
 * missing path), sorted, folders ending in `/`, hidden ones left out, at most 40
 * and then how many more; none when the folder cannot be read.
 */
export function projectEntries(directory: string): string[] {
  let entries;
  try {
    entries = readdirSync(directory, { withFileTypes: true });
  } catch {
    return [];
  }
  const names = entries
    .filter((entry) => !SKIPPED.has(entry.name) && !entry.name.startsWith('.'))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort();
  return names.length > MAX_ENTRIES
    ? [...names.slice(0, MAX_ENTRIES), `… and ${names.length - MAX_ENTRIES} more`]
    : names;
}
