import { isAbsolute, relative, resolve } from 'node:path';
import { ToolError } from './tool-handler.js';

/** An absolute path for a tool argument, refusing paths outside the project directory. */
export function resolveInProject(directory: string, path: string | undefined): string {
  const absolute = path ? resolve(directory, path) : resolve(directory);
  if (!isInside(directory, absolute)) {
    throw new ToolError(
      `${absolute} is outside the project directory ${directory}. Access to other directories needs the external_directory permission, which is not granted.`,
    );
  }
  return absolute;
}

export function isInside(directory: string, path: string): boolean {
  const rel = relative(resolve(directory), path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
