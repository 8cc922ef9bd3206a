import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { resolve } from 'node:path';
import { FilesRequestError } from '../../../activities/snapshot/request-error.js';
import type { FilesRestored } from '../../../activities/snapshot/session-revert.js';
import { forkWithFiles, readSessionDiff, revertFiles, unrevertFiles } from '../../services/session-files.js';
import type { ServeDeps } from '../deps.js';
import { ErrorBody, HttpError } from '../errors.js';
import { json, Session, SessionIdParam } from '../schemas.js';

const refusals = {
  400: json(ErrorBody, 'invalid body, or a message the session does not have'),
  404: json(ErrorBody, 'no such session or message'),
  409: json(ErrorBody, 'the session (or a subagent of it) is busy, or another revert or fork of it is under way'),
};

const Restored = Session.extend({
  restored: z.array(z.string()).openapi({ description: 'the files put back' }),
  conflicts: z
    .array(z.string())
    .openapi({ description: 'files left alone: someone changed them after the agent (send `force` to overwrite)' }),
}).openapi('RestoredSession');

const revert = createRoute({
  method: 'post',
  path: '/session/{id}/revert',
  summary:
    'Undo from a message on (default: the last prompt): the files the session and its subagents changed go back, the messages are hidden from the model',
  request: {
    params: SessionIdParam,
    body: {
      content: {
        'application/json': {
          schema: z
            .object({ messageID: z.string().optional(), partID: z.string().optional(), force: z.boolean().optional() })
            .openapi('RevertSession'),
        },
      },
      required: false,
    },
  },
  responses: { 200: json(Restored, 'the session, reverted, with what was restored'), ...refusals },
});

const unrevert = createRoute({
  method: 'post',
  path: '/session/{id}/unrevert',
  summary: "Undo the session's revert: its files and messages come back",
  request: {
    params: SessionIdParam,
    body: {
      content: {
        'application/json': { schema: z.object({ force: z.boolean().optional() }).openapi('UnrevertSession') },
      },
      required: false,
    },
  },
  responses: { 200: json(Restored, 'the session, with what was restored'), ...refusals },
});

const fork = createRoute({
  method: 'post',
  path: '/session/{id}/fork',
  summary: 'A new session with the history before a message (default: all); `dir` gets the files of that moment',
  request: {
    params: SessionIdParam,
    body: {
      content: {
        'application/json': {
          schema: z
            .object({
              messageID: z.string().optional(),
              dir: z
                .string()
                .optional()
                .openapi({ description: "a new folder on the session's host for the files as they were then" }),
            })
            .openapi('ForkSession'),
        },
      },
      required: false,
    },
  },
  responses: { 200: json(Session, 'the new session'), ...refusals },
});

const FileDiff = z
  .object({
    file: z.string(),
    status: z.enum(['added', 'modified', 'deleted']),
    before: z.string(),
    after: z.string(),
    additions: z.number(),
    deletions: z.number(),
    diff: z.string().openapi({ description: 'the unified diff' }),
  })
  .openapi('FileDiff');

const diff = createRoute({
  method: 'get',
  path: '/session/{id}/diff',
  summary: 'The files the session and its subagents changed (of one message, or one step, when asked)',
  request: {
    params: SessionIdParam,
    query: z.object({
      messageID: z.string().optional(),
      step: z.coerce.number().int().min(1).optional().openapi({ description: "the session's n-th step" }),
    }),
  },
  responses: { 200: json(z.array(FileDiff), 'the changed files'), ...refusals },
});

const STATUS = { unknown: 404, busy: 409, invalid: 400 } as const;

/** Undo, redo, fork and diff: the files a session changed, as OpenCode's server offers them. */
export function registerSessionFilesRoutes(app: OpenAPIHono, deps: ServeDeps): void {
  const access = async () => ({ client: await deps.client(), taskQueue: deps.taskQueue, store: deps.store });
  const current = async (id: string) => (await deps.store.getSession(id))!;
  /** The session as the request left it, with the files it put back and those it left alone. */
  const restoredSession = async ({ sessionId, restored, conflicts }: FilesRestored) => ({
    ...(await current(sessionId)),
    restored,
    conflicts,
  });

  app.openapi(revert, async (c) => {
    const { id } = c.req.valid('param');
    const { messageID, partID, force } = c.req.valid('json') ?? {};
    const to = messageID ? { messageID, ...(partID ? { partID } : {}) } : undefined;
    const result = await answering(async () => revertFiles(await access(), { sessionId: id, to, force }));
    return c.json(await restoredSession(result), 200);
  });

  app.openapi(unrevert, async (c) => {
    const { id } = c.req.valid('param');
    const { force } = c.req.valid('json') ?? {};
    const result = await answering(async () => unrevertFiles(await access(), { sessionId: id, force }));
    return c.json(await restoredSession(result), 200);
  });

  app.openapi(fork, async (c) => {
    const { id } = c.req.valid('param');
    const { messageID, dir } = c.req.valid('json') ?? {};
    const directory = dir === undefined ? undefined : resolve(deps.defaultDirectory, dir);
    const made = await answering(async () =>
      forkWithFiles(await access(), { sessionId: id, messageId: messageID, dir: directory }),
    );
    return c.json(await current(made.sessionId), 200);
  });

  app.openapi(diff, async (c) => {
    const { id } = c.req.valid('param');
    const { messageID, step } = c.req.valid('query');
    const files = await answering(() =>
      readSessionDiff(deps.store, deps.dataDir, deps.hostId, id, { messageId: messageID, step }),
    );
    return c.json(files, 200);
  });
}

/** A request the session cannot do as asked answers with its reason: 404, 409 or 400. */
async function answering<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof FilesRequestError) throw new HttpError(STATUS[error.problem], error.message);
    throw error;
  }
}
