import { z } from '@hono/zod-openapi';
import { BatchRecord } from '../../../core/batch.js';
import { Message } from '../../../core/message.js';
import { Part } from '../../../core/part.js';
import { PermissionRequestRecord } from '../../../core/permission-request.js';
import { Session } from '../../../core/session.js';

/**
 * What a session is doing now, finer than its stored status: a busy session may be waiting for a
 * person's approval or for a worker on the machine that holds its workspace.
 */
export const LiveStatus = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('idle') }),
    z.object({ type: z.literal('busy') }),
    z.object({ type: z.literal('waiting-approval'), requestIDs: z.array(z.string()) }),
    z.object({ type: z.literal('waiting-host'), host: z.string() }),
    z.object({ type: z.literal('failed') }),
    z.object({ type: z.literal('cancelled') }),
  ])
  .openapi('LiveStatus');
export type LiveStatus = z.infer<typeof LiveStatus>;

const BatchCounts = z.record(z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']), z.number());

const event = <T extends string, P extends z.ZodType>(type: T, properties: P) =>
  z.object({ type: z.literal(type), properties });

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
    event('session.created', z.object({ info: Session })),
    event('session.updated', z.object({ info: Session })),
    // The session as it was last; `sessionID` too, as newer OpenCode servers send it.
    event('session.deleted', z.object({ sessionID: z.string(), info: Session })),
    event('session.status', z.object({ sessionID: z.string(), status: LiveStatus })),
    event('message.updated', z.object({ info: Message })),
    event('message.part.updated', z.object({ part: Part, delta: z.string().optional() })),
    event('message.removed', z.object({ sessionID: z.string(), messageID: z.string() })),
    event('message.part.removed', z.object({ sessionID: z.string(), messageID: z.string(), partID: z.string() })),
    event('permission.asked', z.object({ request: PermissionRequestRecord })),
    event('permission.replied', z.object({ request: PermissionRequestRecord })),
    event('batch.updated', z.object({ batch: BatchRecord, counts: BatchCounts })),
  ])
  .openapi('Event');
export type ServerEvent = z.infer<typeof ServerEvent>;
export type ServerEventType = ServerEvent['type'];
