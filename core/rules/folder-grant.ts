import { dirnamePath } from '../text/path.js';
import type { PermissionRequest } from './permission.js';

/** Tools whose `external_directory` requests are for reading (file tools run in the worker, not the sandbox). */
const READING_TOOLS = new Set(['read', 'list', 'glob', 'grep']);

/**
 * The paths an allowed `external_directory` request opens for writing in the call's sandbox. A
 * request without a grant (a file tool's, or one planned before reads and writes were told apart)
 * opens the folders of its patterns, as such requests always did.
 */
export function writablePaths(request: PermissionRequest): string[] {
  if (request.permission !== 'external_directory') return [];
  if (!request.grant) return patternFolders(request.patterns).filter((folder) => /^\/[^*?$`{]*$/.test(folder));
  return request.grant.access === 'read' ? [] : [...request.grant.folders, ...request.grant.files];
}

/**
 * What a person grants by approving an `external_directory` request, in the ask's words:
 * `write access to /srv/out`, `read access to /etc`, and for a write the sandbox cannot open, that
 * the command has to run outside it.
 */
export function grantWords(request: PermissionRequest, tool: string): string[] {
  const grant = request.grant;
  if (!grant) {
    const access = tool === 'bash' || !READING_TOOLS.has(tool) ? 'write' : 'read';
    return [`${access} access to ${patternFolders(request.patterns).join(', ')}`];
  }
  if (grant.access === 'read') return [`read access to ${patternFolders(request.patterns).join(', ')}`];
  return [
    ...(grant.folders.length ? [`write access to ${grant.folders.join(', ')}`] : []),
    ...grant.files.map((file) => `write access to the file ${file} only (not the folder ${dirnamePath(file)})`),
    ...grant.closed.map(
      ({ path, why }) =>
        `no write access in the sandbox to ${path} (${why}): writing it needs the command run outside the sandbox`,
    ),
  ];
}

/** `/srv/*` → `/srv`; `/*` → `/`. */
export function patternFolders(patterns: string[]): string[] {
  return patterns.map((pattern) => pattern.replace(/\/\*$/, '') || '/');
}
