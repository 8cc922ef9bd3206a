import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { ChangeFeed } from '../../../activities/store/change-feed.js';
import type { PermissionRecords } from '../../../activities/store/permissions.js';
import type { PermissionReply, PermissionRequestRecord } from '../../../core/rules/permission-request.js';
import { PermissionReplyError, replyToRequest } from '../../services/permissions.js';
import { rootOf } from '../../services/sessions.js';
import type { ServeDeps } from '../deps.js';
import { ErrorBody, HttpError, unknownSession } from '../errors.js';
import { knownSession } from '../session-waits.js';
import { json, PermissionReplyBody, PermissionRequest, SessionIdParam, SessionPermissionBody } from '../schemas.js';

/** How long a reply waits for the run to record it in the store before answering from the reply itself. */
const RECORD_WAIT_MS = 3_000;

const RequestIdParam = z.object({
  requestID: z.string().openapi({ param: { name: 'requestID', in: 'path' }, example: 'per_…' }),
});

const unknownRequest = (id: string) =>
  new HttpError(404, `Unknown permission request "${id}". GET /permission lists those waiting.`);

const replied = {
  200: json(PermissionRequest, 'the request, with the answer the run recorded'),
  400: json(ErrorBody, 'invalid body'),
  404: json(ErrorBody, 'no such request'),
  409: json(ErrorBody, 'the request was answered already, or the run that asked is no longer running'),
};

const list = createRoute({
  method: 'get',
  path: '/permission',
  summary: 'Permission requests waiting for an answer, oldest first, as `loom pending` lists them',
  request: {
    query: z.object({
      session: z
        .string()
        .optional()
        .openapi({ description: "only this session's tree (any session of it; its root is used)" }),
    }),
  },
  responses: { 200: json(z.array(PermissionRequest), 'the waiting requests'), 404: json(ErrorBody, 'no such session') },
});

const get = createRoute({
  method: 'get',
  path: '/permission/{requestID}',
  summary: 'One permission request, waiting or answered',
  request: { params: RequestIdParam },
  responses: { 200: json(PermissionRequest, 'the request'), 404: json(ErrorBody, 'no such request') },
});

const reply = createRoute({
  method: 'post',
  path: '/permission/{requestID}/reply',
  summary:
    'Answer a permission request, as `loom approve` does: once, always, or reject (with `message`: feedback, and the turn goes on)',
  request: {
    params: RequestIdParam,
    body: { content: { 'application/json': { schema: PermissionReplyBody } }, required: true },
  },
  responses: replied,
});

const sessionReply = createRoute({
  method: 'post',
  path: '/session/{id}/permissions/{permissionID}',
  summary: "OpenCode's session-scoped reply: refused unless the request belongs to this session's tree",
  request: {
    params: SessionIdParam.extend({
      permissionID: z.string().openapi({ param: { name: 'permissionID', in: 'path' }, example: 'per_…' }),
    }),
    body: { content: { 'application/json': { schema: SessionPermissionBody } }, required: true },
  },
  responses: {
    ...replied,
    403: json(ErrorBody, "the request belongs to another session's tree"),
    404: json(ErrorBody, 'no such session or request'),
  },
});

/** Permission requests: read from the store; replies go to the asking run as a Temporal update. */
export function registerPermissionRoutes(app: OpenAPIHono, deps: ServeDeps): void {
  const { store } = deps;
  const existing = async (id: string) => {
    const request = await store.getPermissionRequest(id);
    if (!request) throw unknownRequest(id);
    return request;
  };
  const answer = async (answer: PermissionReply) => {
    try {
      return await recorded(store, await replyToRequest(await deps.client(), store, answer), answer);
    } catch (error) {
      if (error instanceof PermissionReplyError)
        throw new HttpError(error.kind === 'unknown' ? 404 : 409, error.message);
      throw error;
    }
  };

  app.openapi(list, async (c) => {
    const { session: id } = c.req.valid('query');
    let rootId: string | undefined;
    if (id) {
      const session = await knownSession(deps, id);
      if (!session) throw unknownSession(id);
      rootId = await rootOf(store, session);
    }
    const requests = await store.permissionRequests({ status: 'pending', ...(rootId ? { rootID: rootId } : {}) });
    return c.json(
      requests.sort((a, b) => a.time.created - b.time.created),
      200,
    );
  });

  app.openapi(get, async (c) => c.json(await existing(c.req.valid('param').requestID), 200));

  app.openapi(reply, async (c) => {
    const { requestID } = c.req.valid('param');
    const body = c.req.valid('json');
    return c.json(await answer({ requestId: requestID, reply: body.reply, message: body.message }), 200);
  });

  app.openapi(sessionReply, async (c) => {
    const { id, permissionID } = c.req.valid('param');
    const body = c.req.valid('json');
    const session = await store.getSession(id);
    if (!session) throw unknownSession(id);
    const request = await existing(permissionID);
    // A client given one session must not answer another tree's requests through it.
    const root = await rootOf(store, session);
    if (request.rootID !== root) {
      throw new HttpError(
        403,
        `Permission request ${request.id} belongs to session ${request.sessionID} (tree ${request.rootID}), not to the tree of session ${id} (root ${root}).`,
      );
    }
    return c.json(await answer({ requestId: permissionID, reply: body.response, message: body.message }), 200);
  });
}

/**
 * The request as the store holds it once the run has recorded the answer. The update returns as
 * soon as the run takes the reply; the run writes it a moment later, so this waits briefly and, if
 * the write is slower, answers with what the run was told.
 */
async function recorded(
  store: ChangeFeed & PermissionRecords,
  asked: PermissionRequestRecord,
  answer: PermissionReply,
): Promise<PermissionRequestRecord> {
  const deadline = Date.now() + RECORD_WAIT_MS;
  // The store announces a request's writes as changes of its session.
  let cursor = (await store.changes(asked.sessionID, Number.MAX_SAFE_INTEGER)).cursor;
  for (;;) {
    const request = await store.getPermissionRequest(asked.id);
    if (request && request.status !== 'pending') return request;
    const left = deadline - Date.now();
    if (left <= 0) break;
    await store.waitForChange(asked.sessionID, cursor, { timeoutMs: left });
    cursor = (await store.changes(asked.sessionID, Number.MAX_SAFE_INTEGER)).cursor;
  }
  return {
    ...asked,
    status: answer.reply === 'reject' ? 'rejected' : 'approved',
    reply: { reply: answer.reply, ...(answer.message === undefined ? {} : { message: answer.message }) },
    time: { ...asked.time, replied: Date.now() },
  };
}
