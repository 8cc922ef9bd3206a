import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { projectOf } from '../../../core/records/session.js';
import { sessionTree } from '../../services/session-tree.js';
import type { ServeDeps } from '../deps.js';
import { ErrorBody, unknownSession } from '../errors.js';
import { ServedSession, servedSession } from '../opencode/shapes.js';
import { json, MessageWithParts, Project, SessionIdParam, SessionNode, SessionWithWait } from '../schemas.js';
import { askTemporal, knownSession, workWait } from '../session-waits.js';
import { servedMessages } from '../opencode/shapes.js';
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
      directory: z
        .string()
        .optional()
        .openapi({ description: 'only the sessions of this project folder, as `loom ls` (default: every project)' }),
    }),
  },
  responses: { 200: json(z.array(ServedSession), 'the sessions'), 400: json(ErrorBody, 'invalid query') },
});

const get = createRoute({
  method: 'get',
  path: '/session/{id}',
  summary:
    'One session; `waiting` tells when its work waits for a worker (a session started a moment ago is known before a worker stores it)',
  request: { params: SessionIdParam },
  responses: { 200: json(SessionWithWait, 'the session'), ...notFound },
});

const projects = createRoute({
  method: 'get',
  path: '/project',
  summary: "The project folders of the stored sessions, the server's own first, then most recently updated first",
  responses: { 200: json(z.array(Project), 'the projects') },
});

/** How many recent root sessions `GET /project` reads to find the projects. */
const PROJECT_SCAN = 10_000;

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
  responses: { 200: json(z.array(ServedSession), 'the child sessions'), ...notFound },
});

const tree = createRoute({
  method: 'get',
  path: '/session/{id}/tree',
  summary: 'A session and its subagents, recursively, with tokens and cost per session and per subtree',
  request: { params: SessionIdParam },
  responses: { 200: json(SessionNode, 'the tree'), ...notFound },
});

/** The read side: everything here comes from the store (a session's `waiting`, and one not stored yet, from Temporal). */
export function registerSessionReadRoutes(app: OpenAPIHono, deps: ServeDeps): void {
  const { store } = deps;
  // A session started a moment ago is known (busy, with nothing stored yet) before a worker takes it.
  const existing = async (id: string) => {
    const session = await knownSession(deps, id);
    if (!session) throw unknownSession(id);
    return session;
  };

  app.openapi(list, async (c) => {
    const { all, limit, directory } = c.req.valid('query');
    const sessions = await store.listSessions({ roots: all !== 'true', directory, limit: limit ?? 50 });
    return c.json(sessions.map(servedSession), 200);
  });
  app.openapi(get, async (c) => {
    const { id } = c.req.valid('param');
    const session = await existing(id);
    // Whether a worker will move the session: asked of Temporal, which may not answer in time.
    const waiting = await askTemporal(async () => workWait(await deps.client(), deps.taskQueue, session));
    return c.json({ ...servedSession(session), ...(waiting ? { waiting } : {}) }, 200);
  });
  app.openapi(projects, async (c) => {
    const byDirectory = new Map<string, { directory: string; sessions: number; updated?: number; current: boolean }>();
    byDirectory.set(deps.defaultDirectory, { directory: deps.defaultDirectory, sessions: 0, current: true });
    for (const session of await store.listSessions({ roots: true, limit: PROJECT_SCAN })) {
      const directory = projectOf(session);
      const project = byDirectory.get(directory) ?? { directory, sessions: 0, current: false };
      project.sessions++;
      project.updated = Math.max(project.updated ?? 0, session.time.updated);
      byDirectory.set(directory, project);
    }
    const rows = [...byDirectory.values()].sort(
      (a, b) => Number(b.current) - Number(a.current) || (b.updated ?? 0) - (a.updated ?? 0),
    );
    return c.json(rows, 200);
  });
  app.openapi(messages, async (c) => {
    const { id } = c.req.valid('param');
    await existing(id);
    return c.json(servedMessages(describedMessages(await store.messages(id))), 200);
  });
  app.openapi(children, async (c) => {
    const { id } = c.req.valid('param');
    await existing(id);
    return c.json((await store.children(id)).map(servedSession), 200);
  });
  app.openapi(tree, async (c) => c.json(await sessionTree(store, await existing(c.req.valid('param').id)), 200));
}
