import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { sessionTree } from '../../services/session-tree.js';
import type { ServeDeps } from '../deps.js';
import { ErrorBody, unknownSession } from '../errors.js';
import { json, MessageWithParts, Session, SessionIdParam, SessionNode } from '../schemas.js';
import { describedMessages } from '../tool-description.js';

const notFound = { 404: json(ErrorBody, 'no such session') };

const list = createRoute({
  method: 'get',
  path: '/session',
  summary: 'Sessions, most recently updated first',
  request: {
    query: z.object({
      all: z.enum(['true', 'false']).optional().openapi({ description: 'include child (subagent) sessions' }),
      limit: z.coerce.number().int().min(1).max(1000).optional().openapi({ description: 'how many (default 50)' }),
    }),
  },
  responses: { 200: json(z.array(Session), 'the sessions'), 400: json(ErrorBody, 'invalid query') },
});

const get = createRoute({
  method: 'get',
  path: '/session/{id}',
  summary: 'One session',
  request: { params: SessionIdParam },
  responses: { 200: json(Session, 'the session'), ...notFound },
});

const messages = createRoute({
  method: 'get',
  path: '/session/{id}/message',
  summary: "A session's messages with their parts, oldest first",
  request: { params: SessionIdParam },
  responses: { 200: json(z.array(MessageWithParts), 'the messages'), ...notFound },
});

const children = createRoute({
  method: 'get',
  path: '/session/{id}/children',
  summary: "A session's subagent sessions",
  request: { params: SessionIdParam },
  responses: { 200: json(z.array(Session), 'the child sessions'), ...notFound },
});

const tree = createRoute({
  method: 'get',
  path: '/session/{id}/tree',
  summary: 'A session and its subagents, recursively, with tokens and cost per session and per subtree',
  request: { params: SessionIdParam },
  responses: { 200: json(SessionNode, 'the tree'), ...notFound },
});

/** The read side: everything here comes from the store; Temporal is not asked. */
export function registerSessionReadRoutes(app: OpenAPIHono, deps: ServeDeps): void {
  const { store } = deps;
  const existing = async (id: string) => {
    const session = await store.getSession(id);
    if (!session) throw unknownSession(id);
    return session;
  };

  app.openapi(list, async (c) => {
    const { all, limit } = c.req.valid('query');
    return c.json(await store.listSessions({ roots: all !== 'true', limit: limit ?? 50 }), 200);
  });
  app.openapi(get, async (c) => c.json(await existing(c.req.valid('param').id), 200));
  app.openapi(messages, async (c) => {
    const { id } = c.req.valid('param');
    await existing(id);
    return c.json(describedMessages(await store.messages(id)), 200);
  });
  app.openapi(children, async (c) => {
    const { id } = c.req.valid('param');
    await existing(id);
    return c.json(await store.children(id), 200);
  });
  app.openapi(tree, async (c) => c.json(await sessionTree(store, await existing(c.req.valid('param').id)), 200));
}
