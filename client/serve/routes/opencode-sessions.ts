import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { ServeDeps } from '../deps.js';
import { ErrorBody, HttpError, unknownSession } from '../errors.js';
import { LiveStatus } from '../events/event-types.js';
import { liveStatus } from '../events/live-status.js';
import { modelName, OpenCodePromptBody, promptText } from '../opencode/prompt-body.js';
import { ServedMessageWithParts, servedMessages } from '../opencode/shapes.js';
import { promptedSession, sendPromptTo } from '../prompt-sending.js';
import { json, SessionIdParam } from '../schemas.js';
import { knownSession } from '../session-waits.js';
import { describedMessages } from '../tool-description.js';

/** How many recently updated sessions `GET /session/status` looks through for busy ones. */
const STATUS_SCAN = 1_000;

const statuses = createRoute({
  method: 'get',
  path: '/session/status',
  summary: "OpenCode's `session.status`: the busy sessions, each with its status (`type` busy, Loom's `detail`)",
  request: {
    query: z.object({
      directory: z.string().optional().openapi({ description: "only this project folder's sessions" }),
    }),
  },
  responses: { 200: json(z.record(z.string(), LiveStatus), 'status by session id, busy sessions only') },
});

const message = createRoute({
  method: 'get',
  path: '/session/{id}/message/{messageID}',
  summary: 'One message of a session, with its parts',
  request: {
    params: SessionIdParam.extend({
      messageID: z.string().openapi({ param: { name: 'messageID', in: 'path' }, example: 'msg_…' }),
    }),
  },
  responses: { 200: json(ServedMessageWithParts, 'the message'), 404: json(ErrorBody, 'no such session or message') },
});

const promptAsync = createRoute({
  method: 'post',
  path: '/session/{id}/prompt_async',
  summary:
    "OpenCode's `session.promptAsync`: send a prompt (an idle session starts a run, a busy one queues it); its progress comes on GET /event",
  request: {
    params: SessionIdParam,
    body: { content: { 'application/json': { schema: OpenCodePromptBody } }, required: true },
  },
  responses: {
    204: { description: 'the prompt was sent' },
    400: json(ErrorBody, 'invalid body, a part or field Loom cannot honour, unknown agent or model'),
    404: json(ErrorBody, 'no such session'),
    409: json(ErrorBody, 'the session is being cancelled, or its budget is spent'),
  },
});

/**
 * The routes OpenCode's SDK automates a session with that Loom's own routes do not cover (its
 * create and blocking prompt share `POST /session` and `POST /session/{id}/message` with Loom's).
 * Registered before the session read routes, so that `/session/status` is not taken for a session id.
 */
export function registerOpenCodeSessionRoutes(app: OpenAPIHono, deps: ServeDeps): void {
  const { store } = deps;

  app.openapi(statuses, async (c) => {
    const { directory } = c.req.valid('query');
    const busy = (await store.listSessions({ directory, limit: STATUS_SCAN })).filter(
      (session) => session.status === 'busy',
    );
    const pending = busy.length ? await store.permissionRequests({ status: 'pending' }) : [];
    return c.json(Object.fromEntries(busy.map((session) => [session.id, liveStatus(session, pending, false)])), 200);
  });

  app.openapi(message, async (c) => {
    const { id, messageID } = c.req.valid('param');
    if (!(await knownSession(deps, id))) throw unknownSession(id);
    const found = await store.getMessage(messageID);
    if (!found || found.sessionID !== id)
      throw new HttpError(
        404,
        `Unknown message "${messageID}" in session ${id}. GET /session/${id}/message lists them.`,
      );
    const [withParts] = (await store.messages(id, messageID)).filter((each) => each.info.id === messageID);
    return c.json(servedMessages(describedMessages([withParts ?? { info: found, parts: [] }]))[0], 200);
  });

  app.openapi(promptAsync, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const session = await promptedSession(deps, id);
    await sendPromptTo(deps, session, {
      prompt: promptText(id, body),
      agent: body.agent,
      model: modelName(body.model),
    });
    return c.body(null, 204);
  });
}
