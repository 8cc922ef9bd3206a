import { statSync } from 'node:fs';
import type { PermissionRequest } from '../../core/rules/permission.js';
import { resolvePath } from '../../core/text/path.js';
import { fileAccess, searchAccess } from '../../core/tool-call/permissions.js';
import type { CheckContext } from './check-context.js';
import { withConfigDiff } from './config-diff.js';
import { mergeRequests } from './merge-requests.js';
import { realPathOf } from './real-path.js';

/**
 * A file or search tool's permissions, for the path it names and for where that path really leads:
 * a link inside the project to a file or folder outside it asks as the outside path would, and
 * rules on paths (`*.env`) match the link's target too. A write of a config file, by its name or
 * where it leads, asks `config` with the change it makes.
 */
export function filePermissions(
  tool: string,
  input: Record<string, unknown>,
  planned: PermissionRequest[],
  context: CheckContext,
): PermissionRequest[] {
  const named = typeof input.filePath === 'string' ? input.filePath : typeof input.path === 'string' ? input.path : '.';
  const lexical = resolvePath(context.directory, named);
  const real = realPathOf(lexical);
  const project = realPathOf(context.directory);
  const realContext = {
    directory: project,
    ...(context.globalConfigDir ? { globalConfigDir: context.globalConfigDir } : {}),
  };
  // `read` of a folder lists it: the folder is what it reaches, not its parent (which "always" would open).
  if (tool === 'read' && isFolder(real)) {
    return mergeRequests(
      planned.filter((request) => request.permission !== 'external_directory'),
      fileAccess('read', real, realContext, { isFolder: true }),
    );
  }
  if (real === lexical && project === context.directory) return withConfigDiff(planned, tool, input, real);
  const forReal = (() => {
    switch (tool) {
      case 'read':
        return fileAccess('read', real, realContext);
      case 'write':
      case 'edit':
        return fileAccess('edit', real, realContext);
      case 'list':
        return searchAccess('list', real, real, realContext);
      default:
        return searchAccess(tool, String(input.pattern ?? '*'), real, realContext);
    }
  })();
  return withConfigDiff(mergeRequests(planned, forReal), tool, input, real);
}

function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
