import type { PermissionRequest, Ruleset } from '../../core/permission.js';
import { bashPermissions } from './bash.js';
import { filePermissions } from './files.js';
import { webfetchPermissions } from './webfetch.js';

/** Where a call is checked: the project it works in. */
export interface CheckContext {
  directory: string;
  /** The agent's rules on reading files: a shell line naming a file they guard asks as `read` would. */
  readRules?: Ruleset;
}

/**
 * The permissions a tool call needs, worked out where I/O is allowed: links are resolved before
 * any containment check and shell lines are parsed, so a call is checked for what it would really
 * touch. `planned` holds what the tool's spec names from the input alone (core), which is kept.
 */
export async function permissionsOf(tool: string, input: Record<string, unknown>, planned: PermissionRequest[], context: CheckContext): Promise<PermissionRequest[]> {
  switch (tool) {
    case 'bash':
      return [...(await bashPermissions(input as { command: string; workdir?: string }, planned, context)), ...unsandboxed(input)];
    case 'read':
    case 'write':
    case 'edit':
    case 'list':
    case 'glob':
    case 'grep':
      return filePermissions(tool, input, planned, context);
    case 'webfetch':
      return webfetchPermissions(input, planned);
    default:
      return planned;
  }
}

/**
 * `sandbox: false` on a bash call runs it outside the sandbox: a permission of its own (`ask` by
 * default), for the whole line, which "always" allows for the same line only.
 */
function unsandboxed(input: Record<string, unknown>): PermissionRequest[] {
  if (input.sandbox !== false || typeof input.command !== 'string') return [];
  const line = input.command.trim();
  return [{ permission: 'unsandboxed', patterns: [line], always: [line], reason: 'the command asks to run outside the sandbox' }];
}

/** Requests merged by permission: every pattern of both, in order, without repeats. */
export function mergeRequests(...lists: PermissionRequest[][]): PermissionRequest[] {
  const merged: PermissionRequest[] = [];
  for (const request of lists.flat()) {
    const same = merged.find((candidate) => candidate.permission === request.permission);
    if (!same) merged.push({ ...request, patterns: [...request.patterns], always: [...request.always] });
    else {
      same.patterns = [...new Set([...same.patterns, ...request.patterns])];
      same.always = [...new Set([...same.always, ...request.always])];
    }
  }
  // A folder outside the project is asked about before what is done there, as the specs order it.
  return [...merged.filter((r) => r.permission === 'external_directory'), ...merged.filter((r) => r.permission !== 'external_directory')];
}
