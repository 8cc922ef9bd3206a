import type { PermissionRequest } from '../../core/rules/permission.js';
import { bashPermissions } from './bash.js';
import { filePermissions } from './files.js';
import { webfetchPermissions } from './webfetch.js';
import type { CheckContext } from './check-context.js';

/**
 * The permissions a tool call needs, worked out where I/O is allowed: links are resolved before
 * any containment check and shell lines are parsed, so a call is checked for what it would really
 * touch. `planned` holds what the tool's spec names from the input alone (core), which is kept.
 */
export async function permissionsOf(
  tool: string,
  input: Record<string, unknown>,
  planned: PermissionRequest[],
  context: CheckContext,
): Promise<PermissionRequest[]> {
  switch (tool) {
    case 'bash':
      return [
        ...(await bashPermissions(input as { command: string; workdir?: string }, planned, context)),
        ...unsandboxed(input, context),
      ];
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
function unsandboxed(input: Record<string, unknown>, context: CheckContext): PermissionRequest[] {
  if (input.sandbox !== false || typeof input.command !== 'string') return [];
  const line = input.command.trim();
  const refused = context.sandboxRefusals?.get(line);
  return [
    {
      permission: 'unsandboxed',
      patterns: [line],
      always: [line],
      reason: refused
        ? `the command asks to run outside the sandbox, which refused it: ${refused}`
        : 'the command asks to run outside the sandbox',
    },
  ];
}
