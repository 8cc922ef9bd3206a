import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Writes a file whole: beside it first, then renamed over it, so a process killed midway leaves
 * the old file or the new one, never half of one. `symlink` writes a link to `content` instead.
 */
export function writeWhole(
  path: string,
  content: Buffer | string,
  options: { mode?: number; symlink?: boolean } = {},
): void {
  mkdirSync(dirname(path), { recursive: true });
  const aside = join(dirname(path), `.loom-${randomBytes(6).toString('hex')}.tmp`);
  if (options.symlink) symlinkSync(content.toString(), aside);
  else writeFileSync(aside, content, { mode: options.mode ?? 0o644 });
  renameSync(aside, path);
}
