import type { BusEvent } from '../../../core/records/bus-events.js';
import type { PermissionRequestRecord } from '../../../core/rules/permission-request.js';
import { servedMessage, servedSession } from '../opencode/shapes.js';
import type { ServerEvent } from './event-types.js';

/**
 * A stored row's event as the server sends it: Loom's properties, with OpenCode's beside them so
 * that `@opencode-ai/sdk` clients (v1 and v2) read the same stream; a request asked is also sent as
 * v1's `permission.updated`.
 */
export function servedEvents(event: BusEvent): ServerEvent[] {
  switch (event.type) {
    case 'session.updated':
      return [{ type: event.type, properties: { info: servedSession(event.properties.info) } }];
    case 'session.deleted':
      return [{ type: event.type, properties: { ...event.properties, info: servedSession(event.properties.info) } }];
    case 'message.updated': {
      const { info } = event.properties;
      return [{ type: event.type, properties: { sessionID: info.sessionID, info: servedMessage(info) } }];
    }
    case 'permission.asked': {
      const { request } = event.properties;
      return [
        { type: 'permission.asked', properties: { request, ...askedFields(request) } },
        { type: 'permission.updated', properties: v1Permission(request) },
      ];
    }
    case 'permission.replied': {
      const { request } = event.properties;
      // A request cancelled or expired with its run was never answered: OpenCode says `reject` then.
      const reply = request.reply?.reply ?? 'reject';
      const ids = { sessionID: request.sessionID, permissionID: request.id, requestID: request.id };
      return [{ type: event.type, properties: { request, ...ids, response: reply, reply } }];
    }
    default:
      return [event];
  }
}

/** OpenCode v2's `permission.asked` properties. */
function askedFields(request: PermissionRequestRecord) {
  return {
    id: request.id,
    sessionID: request.sessionID,
    permission: request.permission,
    patterns: request.patterns,
    metadata: metadataOf(request),
    always: request.always,
    tool: { messageID: request.messageID, callID: request.callID },
  };
}

/** OpenCode v1's Permission. */
function v1Permission(request: PermissionRequestRecord) {
  return {
    id: request.id,
    type: request.permission,
    pattern: request.patterns,
    sessionID: request.sessionID,
    messageID: request.messageID,
    callID: request.callID,
    title: request.title,
    metadata: metadataOf(request),
    time: { created: request.time.created },
  };
}

function metadataOf(request: PermissionRequestRecord): Record<string, unknown> {
  return { tool: request.tool, agent: request.agent, ...(request.reason ? { reason: request.reason } : {}) };
}
