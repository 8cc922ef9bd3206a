import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import type { ServeDeps } from '../deps.js';
import { streamEvents, type EventBus } from '../events/connection.js';
import { ServerEvent } from '../events/event-types.js';
import { HostWatch } from '../events/host-watch.js';
import { SharedFeed } from '../events/shared-feed.js';

const events = createRoute({
  method: 'get',
  path: '/event',
  summary:
    'Server-Sent Events: every change to sessions, messages, parts, permission requests and batches, as `data:` lines of JSON. ' +
    'Send `Last-Event-ID` (browsers do on reconnect) to get what was missed; a heartbeat comes every 10 s.',
  request: {
    headers: z.object({
      'last-event-id': z
        .string()
        .regex(/^\d+$/)
        .optional()
        .openapi({ description: 'the id of the last event received' }),
    }),
    query: z.object({
      token: z
        .string()
        .optional()
        .openapi({ description: 'the server token, for clients that cannot send headers (EventSource)' }),
    }),
  },
  responses: { 200: { content: { 'text/event-stream': { schema: ServerEvent } }, description: 'the event stream' } },
});

/** `GET /event`: one bus per server, shared by every client. */
export function registerEventRoutes(app: OpenAPIHono, deps: ServeDeps): void {
  const hosts = new HostWatch(deps.client, deps.taskQueue, () => deps.store.listSessions({ limit: 500 }));
  const bus: EventBus = { store: deps.store, feed: new SharedFeed(deps.store, hosts), hosts };
  app.openapi(events, (c) => {
    const lastEventId = c.req.valid('header')['last-event-id'];
    // Proxies such as nginx buffer responses unless told not to; events must arrive as they happen.
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, (stream) =>
      streamEvents(stream, bus, lastEventId === undefined ? undefined : Number(lastEventId)),
    );
  });
}
