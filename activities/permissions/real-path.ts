import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** Links followed before a path counts as unresolvable (the kernel's own limit). */
const MAX_LINKS = 40;

/**
 * Where a path really leads: the links of its longest existing prefix resolved, the part that does
 * not exist yet appended as written. A file a tool would create through a linked folder, or through
 * a link to a file that does not exist yet, is checked against where the link points.
 */
export function realPathOf(path: string, links = 0): string {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      const real = realpathSync(current);
      return missing.length ? join(real, ...missing.reverse()) : real;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return path;
      // A dangling link leads where its target will be created.
      const target = linkTarget(current);
      if (target !== undefined && links < MAX_LINKS)
        return realPathOf(join(resolve(dirname(current), target), ...missing.reverse()), links + 1);
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(basename(current));
      current = parent;
    }
  }
}

function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}
