import { alwaysPattern, commandWords, pathArguments, splitCommands } from './bash-command.js';
import { dirnamePath, isInsidePath, relativePath, resolvePath } from './path.js';
import { permissionOfTool, type PermissionRequest } from './permission.js';
import type { PermissionContext, ToolSpec } from './tool-spec.js';

/** Commands whose path arguments are folders; for the others, a path's folder is what is reached. */
const FOLDER_COMMANDS = new Set(['cd', 'pushd', 'ls', 'mkdir', 'rmdir', 'find', 'tree', 'du']);

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
): PermissionRequest[] {
  const absolute = resolvePath(context.directory, path);
  // `edit` rules are written relative to the project; `read` rules against absolute paths.
  const pattern = permission === 'edit' && isInsidePath(context.directory, absolute) ? relativePath(context.directory, absolute) : absolute;
  return [...externalDirectory(context, dirnamePath(absolute)), { permission, patterns: [pattern], always: ['*'] }];
}

/** A search tool's permissions: the folder searched if outside, then the pattern. */
export function searchAccess(permission: string, pattern: string, path: string | undefined, context: PermissionContext): PermissionRequest[] {
  const folder = resolvePath(context.directory, path ?? '.');
  return [...externalDirectory(context, folder), { permission, patterns: [pattern], always: ['*'] }];
}

/**
 * A bash call's permissions: folders outside the project it works in or names (`cd`, `rm`, …),
 * then each command of the line, with "always" offering the command's prefix (`git commit *`).
 */
export function bashAccess(command: string, workdir: string | undefined, context: PermissionContext): PermissionRequest[] {
  const cwd = resolvePath(context.directory, workdir ?? '.');
  const commands = splitCommands(command);
  const folders = new Set<string>([cwd]);
  for (const part of commands) {
    const takesFolders = FOLDER_COMMANDS.has(commandWords(part)[0] ?? '');
    for (const argument of pathArguments(part)) {
      if (argument.includes('$') || argument.includes('`')) continue;
      const target = resolvePath(cwd, argument);
      folders.add(takesFolders ? target : dirnamePath(target));
    }
  }
  const external = [...folders].flatMap((folder) => externalDirectory(context, folder));
  const unique = [...new Set(external.flatMap((request) => request.patterns))];
  return [
    ...(unique.length ? [{ permission: 'external_directory', patterns: unique, always: unique }] : []),
    { permission: 'bash', patterns: commands.length ? commands : [command.trim()], always: [...new Set(commands.map(alwaysPattern))] },
  ];
}
