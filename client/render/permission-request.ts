import type { PermissionRequestRecord } from '../../core/rules/permission-request.js';

/**
 * How a request reads in a terminal: what it asks for (for a folder outside the project, what
 * approving grants: `write access to /srv/out`), and which session (of which tree) asks.
 */
export function describeRequest(request: PermissionRequestRecord): string {
  const always = request.always.join(', ');
  const later = request.permission === 'external_directory' ? ' (later calls reaching these folders ask no more)' : '';
  return [
    `△ Permission required · ${request.title}${request.permission === request.tool ? '' : ` (${request.permission})`}`,
    `  ${(request.grants ?? request.patterns).join('\n  ')}`,
    ...(request.reason ? [`  why: ${request.reason}`] : []),
    ...(request.diff
      ? request.diff
          .replace(/\n$/, '')
          .split('\n')
          .filter((line) => !/^={5,}$/.test(line))
          .map((line) => `    ${line}`)
      : []),
    `  ${askedIn(request)} · request ${request.id}`,
    `  "always" would allow: ${request.permission} ${always}${later}`,
  ].join('\n');
}

/** `in session ses_child (general), subagent of ses_root`: a subagent's request names the root it belongs to. */
export function askedIn(request: Pick<PermissionRequestRecord, 'sessionID' | 'rootID' | 'agent'>): string {
  const root = request.rootID && request.rootID !== request.sessionID ? `, subagent of ${request.rootID}` : '';
  return `in session ${request.sessionID} (${request.agent})${root}`;
}

/** The commands that answer a request, in full, ready to copy. */
export function answerHint(request: PermissionRequestRecord): string {
  return `Answer with: loom approve ${request.id} (or --always) · reject with: loom approve ${request.id} --reject [--message "why"]`;
}
