import { readFileSync, statSync } from 'node:fs';
import { PERMISSION_DIFF_LIMIT, type PermissionRequest } from '../../core/rules/permission.js';
import { replaceText } from '../tools/files/replace-text.js';
import { unifiedDiff } from '../tools/files/unified-diff.js';

/** Files bigger than this are not read for the diff: config files are small, and the ask must be quick. */
const MAX_READ_BYTES = 512 * 1024;

/**
 * Puts the change a `write` or `edit` would make into its `config` request, so the person asked
 * sees what the agent wants the configuration to say. `path` is where the call really writes.
 */
export function withConfigDiff(
  requests: PermissionRequest[],
  tool: string,
  input: Record<string, unknown>,
  path: string,
): PermissionRequest[] {
  const index = requests.findIndex((request) => request.permission === 'config');
  if (index === -1) return requests;
  const diff = configDiff(tool, input, path, requests[index].patterns[0] ?? path);
  if (diff === undefined) return requests;
  return requests.map((request, at) => (at === index ? { ...request, diff } : request));
}

function configDiff(tool: string, input: Record<string, unknown>, path: string, name: string): string | undefined {
  const before = currentText(path);
  if (before === undefined) return undefined;
  let after: string;
  if (tool === 'write' && typeof input.content === 'string') after = input.content;
  else if (tool === 'edit' && typeof input.oldString === 'string' && typeof input.newString === 'string') {
    try {
      after =
        input.oldString === ''
          ? input.newString
          : replaceText(before, input.oldString, input.newString, input.replaceAll === true, name);
    } catch {
      return undefined; // The edit will fail on its own, and say why.
    }
  } else return undefined;
  return cut(unifiedDiff(name, before, after).diff);
}

/** The file as it is: '' when it does not exist yet; undefined when it cannot be shown (a folder, too big). */
function currentText(path: string): string | undefined {
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) return '';
  if (!info.isFile() || info.size > MAX_READ_BYTES) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** A diff within the limit, cut at a line, saying how much was left out. */
function cut(diff: string): string {
  if (diff.length <= PERMISSION_DIFF_LIMIT) return diff;
  const kept = diff.slice(0, PERMISSION_DIFF_LIMIT - 80);
  const head = kept.slice(0, kept.lastIndexOf('\n') + 1);
  const left = diff.slice(head.length).split('\n').length;
  return `${head}… (${left} more lines of the diff not shown)\n`;
}
