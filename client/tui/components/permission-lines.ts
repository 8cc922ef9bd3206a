import pc from 'picocolors';
import type { PermissionRequestRecord } from '../../../core/rules/permission-request.js';
import { renderUnifiedDiff } from '../render/diff.js';
import { oneLine } from '../render/columns.js';

const DIFF_LINES = 12;

/** Where the panel stands: choosing, or typing what the agent should do instead of a rejected call. */
export type PermissionStep = { kind: 'choose' } | { kind: 'reject'; message: string };

/**
 * A waiting request as the panel that replaces the prompt box draws it: what is asked, by which
 * session and agent (a subagent's, however deep, is shown in the session being looked at), and the keys.
 */
export function permissionLines(
  request: PermissionRequestRecord,
  options: { width: number; viewedSessionId?: string; waiting: number; step: PermissionStep },
): string[] {
  const { width } = options;
  const kind = request.permission === request.tool ? '' : pc.dim(` (${request.permission})`);
  const more = options.waiting > 1 ? pc.dim(` · 1 of ${options.waiting} waiting`) : '';
  const who =
    request.sessionID === options.viewedSessionId
      ? `asked by @${request.agent} in this session`
      : `asked by @${request.agent} in subagent session ${request.sessionID}`;
  const lines = [
    pc.yellow(pc.bold('△ Permission required')) + more,
    `  ${oneLine(request.title, width - 4)}${kind}`,
    pc.dim(`  ${who}`),
    ...(request.grants ?? request.patterns).slice(0, 4).map((pattern) => pc.dim(`  ${oneLine(pattern, width - 4)}`)),
  ];
  if (request.reason) lines.push(pc.dim(`  why: ${oneLine(request.reason, width - 9)}`));
  if (request.diff)
    lines.push(
      ...renderUnifiedDiff(request.diff, { width: width - 4, maxLines: DIFF_LINES }).map((line) => `  ${line}`),
    );
  if (options.step.kind === 'reject') {
    lines.push(
      pc.dim('  Tell the agent what to do instead (enter rejects, esc goes back):'),
      `  ${pc.cyan('›')} ${options.step.message}${pc.inverse(' ')}`,
    );
  } else {
    lines.push(
      `  ${pc.bold(pc.green('a'))} allow once   ${pc.bold(pc.green('A'))} always (${oneLine(request.always.join(', '), 40)})   ${pc.bold(pc.red('r'))} reject`,
    );
  }
  return lines;
}
