import type { PermissionRequestRecord } from '../../../core/rules/permission-request.js';
import type { Session } from '../../../core/records/session.js';
import type { LiveStatus } from './event-types.js';

/**
 * What a session is doing: its stored status, and for a busy one what it waits for. A person's
 * answer comes first: a run that waits for an approval waits for nothing else. A root session
 * waits for the approvals of its whole tree, so a list of sessions shows which tree needs a person.
 */
export function liveStatus(session: Session, pending: PermissionRequestRecord[], hostUnserved: boolean): LiveStatus {
  if (session.status !== 'busy') return { type: 'idle', detail: session.status };
  const isRoot = session.parentID === undefined;
  const requestIDs = pending
    .filter(
      (request) =>
        request.status === 'pending' && (request.sessionID === session.id || (isRoot && request.rootID === session.id)),
    )
    .map((request) => request.id);
  if (requestIDs.length > 0) return { type: 'busy', detail: 'waiting-approval', requestIDs };
  if (hostUnserved && session.host) return { type: 'busy', detail: 'waiting-host', host: session.host };
  return { type: 'busy', detail: 'busy' };
}
