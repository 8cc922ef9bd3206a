import { isAbsolute, relative, resolve } from 'node:path';
import { toolOutputDir } from '../paths.js';
import { ExternalDirectoryError, type ToolContext } from './tool-handler.js';

/**
 * An absolute path for a tool argument. Paths outside the project directory need the
 * `external_directory` permission, which the run checks before the call; Loom's saved tool
 * outputs, which the model is told to read when an output was cut, are always reachable.
 */
export function resolveInProject(
  context: Pick<ToolContext, 'directory' | 'dataDir' | 'externalAllowed'>,
  path: string | undefined,
): string {
  const absolute = path ? resolve(context.directory, path) : resolve(context.directory);
  if (context.externalAllowed) return absolute;
  if (!isInside(context.directory, absolute) && !isInside(toolOutputDir(context.dataDir), absolute)) {
    throw new ExternalDirectoryError(absolute, context.directory);
  }
  return absolute;
}

export function isInside(directory: string, path: string): boolean {
  const rel = relative(resolve(directory), path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
