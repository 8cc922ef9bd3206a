import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { resolve } from 'node:path';
import { checkProviderHere, chooseModel, modelRetryFromEnv, SERVER_NAMES_MODEL } from '../../services/model-choice.js';
import { chooseAgent, loadPersonProject } from '../../services/project-agents.js';
import { checkPromptSize, promptLimit } from '../../services/sent-prompts.js';
import { BusySessionError, removeSessionTree, UnknownSessionError } from '../../services/remove-session.js';
import { cancelSession, startSession } from '../../services/sessions.js';
import { checkBudgetPrices } from '../../services/budgets.js';
import type { ServeDeps } from '../deps.js';
import { ErrorBody, HttpError, unknownSession } from '../errors.js';
import { answerWhenDone, TurnAnswerBody } from '../opencode/blocking-prompt.js';
import { createSession, parentRefused, requestedDirectory } from '../opencode/create-session.js';
import { modelName, promptText, refuseUnsupported } from '../opencode/prompt-body.js';
import { servedSession, ServedSession } from '../opencode/shapes.js';
import { budgetOfBody, promptedSession, sendPromptTo } from '../prompt-sending.js';
import { json, PromptBody, SessionIdParam, StartBody, Started } from '../schemas.js';
import { knownSession } from '../session-waits.js';

const start = createRoute({
  method: 'post',
  path: '/session',
  summary:
    "Start a session with its first prompt; returns its id at once (GET /session/{id} shows its status). Without a prompt, OpenCode's `session.create`: an idle session, returned",
  request: {
    query: z.object({
      directory: z.string().optional().openapi({ description: 'the project directory, as OpenCode clients send it' }),
    }),
    body: { content: { 'application/json': { schema: StartBody } }, required: false },
  },
  responses: {
    200: json(ServedSession, 'no prompt: the session was created, idle'),
    201: json(Started, 'the session was started'),
    400: json(ErrorBody, 'invalid body, unknown agent or model, prompt too large'),
  },
});

const prompt = createRoute({
  method: 'post',
  path: '/session/{id}/message',
  summary:
    "Send a prompt, as `loom resume` does: an idle session starts a new run, a busy one queues it. `prompt` returns at once; OpenCode's `parts` wait for the turn's answer",
  request: {
    params: SessionIdParam,
    body: { content: { 'application/json': { schema: PromptBody } }, required: true },
  },
  responses: {
    200: json(
      TurnAnswerBody,
      "`parts`: the turn's last assistant message and its parts, once the turn is over (a failed or cancelled turn: with its `error`). Whitespace is sent while the turn runs, to keep the connection open",
    ),
    202: json(
      z.object({ id: z.string(), promptID: z.string(), runID: z.string() }).openapi('PromptSent'),
      'the prompt was sent',
    ),
    400: json(ErrorBody, 'invalid body'),
    404: json(ErrorBody, 'no such session'),
    409: json(ErrorBody, 'the session is being cancelled'),
  },
});

const abort = createRoute({
  method: 'post',
  path: '/session/{id}/abort',
  summary: "Cancel a session's running run, with its tools and subagents",
  request: { params: SessionIdParam },
  responses: {
    200: json(
      z.object({ id: z.string(), result: z.enum(['cancelled', 'not-running']) }).openapi('Aborted'),
      'what happened',
    ),
    404: json(ErrorBody, 'no such session'),
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/session/{id}',
  summary:
    'Delete a session with its subagent sessions (children first), its stored rows and snapshots, as `loom rm` does; refused while any of them is busy',
  request: { params: SessionIdParam },
  responses: {
    200: json(z.literal(true), 'the session and its subtree are deleted'),
    404: json(ErrorBody, 'no such session'),
    409: json(ErrorBody, 'the session, or one below it, is busy'),
  },
});

/**
 * The write side: these reach Temporal, as `loom run`, `loom resume` and `loom cancel` do, and
 * answer at once, except OpenCode's blocking prompt, which waits for its turn to end.
 */
export function registerSessionWriteRoutes(app: OpenAPIHono, deps: ServeDeps): void {
  const { store, env } = deps;

  app.openapi(start, async (c) => {
    const body = c.req.valid('json') ?? {};
    if (body.parentID !== undefined) throw parentRefused(body.parentID);
    const directory = resolve(deps.defaultDirectory, body.directory ?? requestedDirectory(c) ?? '.');
    if (body.prompt === undefined) return c.json(servedSession(await createSession(deps, directory, body)), 200);
    const project = await loadPersonProject(store, directory, env, deps.dataDir);
    const agent = chooseAgent(body.agent, project);
    // As `loom run`: the model is decided here and pinned in the run. A key missing in the
    // server's environment is left to the worker that makes the calls (it may have one).
    const model = chooseModel(body.model, agent, project, env, SERVER_NAMES_MODEL);
    checkProviderHere(model, project.config, env);
    const budget = budgetOfBody(body);
    checkBudgetPrices(budget, model, project.config, 'the new session');
    const maxPromptBytes = promptLimit(env, project.config);
    checkPromptSize(body.prompt, maxPromptBytes);
    const { sessionId } = await startSession(await deps.client(), store, {
      prompt: body.prompt,
      maxPromptBytes,
      agent,
      model,
      directory,
      host: deps.hostId,
      title: body.title,
      timeoutMs: body.timeout,
      taskQueue: deps.taskQueue,
      modelRetry: modelRetryFromEnv(env),
      webUrl: deps.webUrl,
      searchAttributes: await deps.searchAttributes(),
      ...(budget ? { budget } : {}),
    });
    return c.json({ id: sessionId }, 201);
  });

  app.openapi(prompt, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const session = await promptedSession(deps, id);
    if ((body.prompt === undefined) === (body.parts === undefined))
      throw new HttpError(
        400,
        `Session ${id}: send "prompt" (Loom's form, answered at once) or "parts" (OpenCode's, answered when the turn ends), not ${body.prompt === undefined ? 'neither' : 'both'}.`,
      );
    const request = {
      agent: body.agent,
      model: modelName(body.model),
      timeout: body.timeout,
      maxTokens: body.maxTokens,
      maxCost: body.maxCost,
    };
    if (body.parts) {
      const text = promptText(id, { ...body, parts: body.parts });
      // Streamed JSON (the route's 200), which the typed handler cannot express.
      return (await answerWhenDone(c, deps, session, { ...request, prompt: text })) as never;
    }
    refuseUnsupported(id, body);
    const sent = await sendPromptTo(deps, session, { ...request, prompt: body.prompt! });
    return c.json({ id, promptID: sent.promptId, runID: sent.runId }, 202);
  });

  app.openapi(abort, async (c) => {
    const { id } = c.req.valid('param');
    // A session no worker has stored yet can be cancelled too: its run is there.
    if (!(await knownSession(deps, id))) throw unknownSession(id);
    const outcome = await cancelSession(await deps.client(), id, store);
    return c.json({ id, result: outcome === 'ended' ? 'cancelled' : outcome }, 200);
  });

  app.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    if (!(await store.getSession(id))) throw unknownSession(id);
    try {
      await removeSessionTree(await deps.client(), store, id, { dataDir: deps.dataDir, hostId: deps.hostId });
    } catch (error) {
      if (error instanceof UnknownSessionError) throw unknownSession(id);
      if (error instanceof BusySessionError) throw new HttpError(409, error.message);
      throw error;
    }
    return c.json(true as const, 200);
  });
}
