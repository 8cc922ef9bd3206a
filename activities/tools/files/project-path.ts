import { isAbsolute, relative, resolve } from 'node:path';
import { toolOutputDir } from '../../process/paths.js';
import { realPathOf } from '../../permissions/real-path.js';
import { ExternalDirectoryError, type ToolContext } from '../running/tool-handler.js';

/**
 * An absolute path for a tool argument. Paths outside the project directory need the
 * `external_directory` permission, which the run checks before the call (links resolved); Loom's saved tool
 * outputs, which the model is told to read when an output was cut, are always reachable.
 */
export function resolveInProject(
  context: Pick<ToolContext, 'directory' | 'dataDir' | 'externalAllowed'>,
  path: string | undefined,
): string {
  return resolveChecked(context, path).path;
}

/** A tool's path as checked: `path` as the model named it (absolute), `real` where it led when checked. */
export interface CheckedPath {
  path: string;
  /** Links resolved: what a tool that opens the file must open (`openChecked`), whatever links appear since. */
  real: string;
}

/** `resolveInProject`, with where the path led when it was checked. */
export function resolveChecked(
  context: Pick<ToolContext, 'directory' | 'dataDir' | 'externalAllowed'>,
  path: string | undefined,
): CheckedPath {
  const absolute = path ? resolve(context.directory, path) : resolve(context.directory);
  // Where it really leads counts: a link in the project may point anywhere.
  const real = realPathOf(absolute);
  if (context.externalAllowed) return { path: absolute, real };
  const inside = (folder: string) => isInside(folder, absolute) && isInside(realPathOf(folder), real);
  if (!inside(context.directory) && !inside(toolOutputDir(context.dataDir))) {
    throw new ExternalDirectoryError(
      real === absolute ? absolute : `${absolute} (a link to ${real})`,
      context.directory,
    );
  }
  return { path: absolute, real };
}

export function isInside(directory: string, path: string): boolean {
  const rel = relative(resolve(directory), path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
