import { isAbsolute, relative, resolve } from 'node:path';
import { toolOutputDir } from '../paths.js';
import { realPathOf } from '../permissions/real-path.js';
import { ExternalDirectoryError, type ToolContext } from './tool-handler.js';

/**
 * An absolute path for a tool argument. Paths outside the project directory need the
 * `external_directory` permission, which the run checks before the call (links resolved); Loom's saved tool
 * outputs, which the model is told to read when an output was cut, are always reachable.
 */
export function resolveInProject(
  context: Pick<ToolContext, 'directory' | 'dataDir' | 'externalAllowed'>,
  path: string | undefined,
): string {
  const absolute = path ? resolve(context.directory, path) : resolve(context.directory);
  if (context.externalAllowed) return absolute;
  // Where it really leads counts: a link in the project may point anywhere.
  const real = realPathOf(absolute);
  const inside = (folder: string) => isInside(folder, absolute) && isInside(realPathOf(folder), real);
  if (!inside(context.directory) && !inside(toolOutputDir(context.dataDir))) {
    throw new ExternalDirectoryError(
      real === absolute ? absolute : `${absolute} (a link to ${real})`,
      context.directory,
    );
  }
  return absolute;
}

export function isInside(directory: string, path: string): boolean {
  const rel = relative(resolve(directory), path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
