import { dirnamePath, isInsidePath, relativePath, resolvePath } from '../path.js';
import { permissionOfTool, type PermissionRequest } from '../permission.js';
import type { PermissionContext, ToolSpec } from './spec.js';

/** The permissions a tool call needs, as its spec names them, or the tool's own with `*`. */
export function permissionsOf(spec: ToolSpec, input: unknown, context: PermissionContext): PermissionRequest[] {
  if (spec.permissions) return spec.permissions(input as never, context);
  return [{ permission: permissionOfTool(spec.name), patterns: ['*'], always: ['*'] }];
}

/** `external_directory` for a folder outside the project: pattern `<dir>/*`. */
export function externalDirectory(context: PermissionContext, folder: string): PermissionRequest[] {
  if (isInsidePath(context.directory, folder)) return [];
  const pattern = `${folder.replace(/\/$/, '')}/*`;
  return [{ permission: 'external_directory', patterns: [pattern], always: [pattern] }];
}

/** A file tool's permissions: its folder if outside the project, then the file itself. */
export function fileAccess(
  permission: 'read' | 'edit',
  path: string,
  context: PermissionContext,
  options: { isFolder?: boolean } = {},
): PermissionRequest[] {
  const absolute = resolvePath(context.directory, path);
  // `edit` rules are written relative to the project; `read` rules against absolute paths.
  const pattern =
    permission === 'edit' && isInsidePath(context.directory, absolute)
      ? relativePath(context.directory, absolute)
      : absolute;
  // A folder `read` lists is the folder reached, not its parent: the project's own is inside the project.
  const folder =
    options.isFolder || absolute === resolvePath(context.directory, '.') ? absolute : dirnamePath(absolute);
  return [...externalDirectory(context, folder), { permission, patterns: [pattern], always: ['*'] }];
}

/** A search tool's permissions: the folder searched if outside, then the pattern. */
export function searchAccess(
  permission: string,
  pattern: string,
  path: string | undefined,
  context: PermissionContext,
): PermissionRequest[] {
  const folder = resolvePath(context.directory, path ?? '.');
  return [...externalDirectory(context, folder), { permission, patterns: [pattern], always: ['*'] }];
}

/**
 * A bash call's permission before its line is parsed: the whole line, nothing to "always" allow.
 * The model activity parses it and puts in its place each command the line runs, with their
 * prefixes, and each folder it reaches (activities/permissions/bash.ts).
 */
export function bashAccess(command: string): PermissionRequest[] {
  return [{ permission: 'bash', patterns: [command.trim()], always: [] }];
}
