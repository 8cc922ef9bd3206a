import { isConfigPath } from '../config/config-files.js';
import { dirnamePath, isInsidePath, relativePath, resolvePath } from '../text/path.js';
import { permissionOfTool, type PermissionRequest } from '../rules/permission.js';
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

/** Why writing a config file asks, whatever `edit` allows: it changes what the agent may do next. */
export const CONFIG_ASK_REASON =
  "it changes Loom's configuration (rules, agents, commands, plugins, MCP servers, the sandbox); a change takes effect once a person confirms it";

/**
 * A file tool's permissions: its folder if outside the project, then the file itself, and for a
 * write of a config file (see `isConfigPath`), `config` on the same pattern.
 */
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
  const requests = [...externalDirectory(context, folder), { permission, patterns: [pattern], always: ['*'] }];
  if (permission === 'edit' && isConfigPath(absolute, context)) requests.push(configAccess(pattern));
  return requests;
}

/** `config` for a write of a config file: "always" allows that file again, never every config file. */
export function configAccess(pattern: string): PermissionRequest {
  return { permission: 'config', patterns: [pattern], always: [pattern], reason: CONFIG_ASK_REASON };
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
