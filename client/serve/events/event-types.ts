import { z } from '@hono/zod-openapi';
import { BatchRecord } from '../../../core/batch/batch.js';
import { Part } from '../../../core/records/part.js';
import { PermissionRequestRecord } from '../../../core/rules/permission-request.js';
import { OpenCodeError, ServedMessage, ServedSession } from '../opencode/shapes.js';

/**
 * What a session is doing now, in OpenCode's SessionStatus (`type`: `idle` or `busy`), with Loom's
 * finer state in `detail`: a busy session may wait for a person's approval (`requestIDs`) or for a
 * worker on the machine that holds its workspace (`host`); an idle one may have ended badly.
 */
export const LiveStatus = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('idle'), detail: z.enum(['idle', 'failed', 'cancelled']) }),
    z.object({
      type: z.literal('busy'),
      detail: z.enum(['busy', 'waiting-approval', 'waiting-host']),
      requestIDs: z.array(z.string()).optional(),
      host: z.string().optional(),
    }),
  ])
  .openapi('LiveStatus');
export type LiveStatus = z.infer<typeof LiveStatus>;

const BatchCounts = z.record(z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']), z.number());

const event = <T extends string, P extends z.ZodType>(type: T, properties: P) =>
  z.object({ type: z.literal(type), properties });

/** OpenCode's v1 Permission, sent as `permission.updated` when a request is asked. */
export const OpenCodePermission = z
  .object({
    id: z.string(),
    type: z.string().openapi({ description: 'the permission asked for (`bash`, `edit`, …)' }),
    pattern: z.array(z.string()),
    sessionID: z.string(),
    messageID: z.string(),
    callID: z.string(),
    title: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    time: z.object({ created: z.number() }),
  })
  .openapi('OpenCodePermission');

/** A permission request as OpenCode's v2 `permission.asked` carries it, beside Loom's `request`. */
const PermissionAsked = z.object({
  request: PermissionRequestRecord,
  id: z.string(),
  sessionID: z.string(),
  permission: z.string(),
  patterns: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  always: z.array(z.string()),
  tool: z.object({ messageID: z.string(), callID: z.string() }),
});

/** The answer, with OpenCode's v1 (`permissionID`, `response`) and v2 (`requestID`, `reply`) fields beside Loom's `request`. */
const PermissionReplied = z.object({
  request: PermissionRequestRecord,
  sessionID: z.string(),
  permissionID: z.string(),
  response: z.string(),
  requestID: z.string(),
  reply: z.string(),
});

/**
 * One event of `GET /event`, sent as an SSE `data:` line of JSON (no `event:` field, so
 * `EventSource.onmessage` sees them all, as with OpenCode's server). Events that come from the store
 * carry its revision as the SSE `id`, which a client sends back as `Last-Event-ID` to get what it
 * missed; each carries the row's whole latest state (a part's full text; `delta` is the text added
 * since the last event of that part on this connection, when it only grew).
 */
export const ServerEvent = z
  .discriminatedUnion('type', [
    event('server.connected', z.object({ cursor: z.number() })),
    event('server.heartbeat', z.object({})),
    event('session.created', z.object({ info: ServedSession })),
    event('session.updated', z.object({ info: ServedSession })),
    // The session as it was last; `sessionID` too, as newer OpenCode servers send it.
    event('session.deleted', z.object({ sessionID: z.string(), info: ServedSession })),
    event('session.status', z.object({ sessionID: z.string(), status: LiveStatus })),
    // A turn of the session ended (after its `session.status` idle); a failed or cancelled one first sends `session.error`.
    event('session.idle', z.object({ sessionID: z.string() })),
    event('session.error', z.object({ sessionID: z.string(), error: OpenCodeError })),
    event('message.updated', z.object({ sessionID: z.string(), info: ServedMessage })),
    event('message.part.updated', z.object({ part: Part, delta: z.string().optional() })),
    event('message.removed', z.object({ sessionID: z.string(), messageID: z.string() })),
    event('message.part.removed', z.object({ sessionID: z.string(), messageID: z.string(), partID: z.string() })),
    event('permission.asked', PermissionAsked),
    event('permission.updated', OpenCodePermission),
    event('permission.replied', PermissionReplied),
    event('batch.updated', z.object({ batch: BatchRecord, counts: BatchCounts })),
  ])
  .openapi('Event');
export type ServerEvent = z.infer<typeof ServerEvent>;
