import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { resolve } from 'node:path';
import { Tokens } from '../../../core/records/message.js';
import type { BatchControl } from '../../../workflows/api.js';
import {
  BatchControlError,
  batchTokens,
  controlBatch,
  endedBatchMessage,
  outcomeSummary,
  startBatch,
  titleFromTasks,
  withSpentTokens,
} from '../../services/batches.js';
import { checkModelFlag, chooseModel, modelRetryFromEnv, SERVER_NAMES_MODEL } from '../../services/model-choice.js';
import { chooseAgent, loadPersonProject } from '../../services/project-agents.js';
import { budgetFromInput, checkBatchBudgetPrices } from '../../services/budgets.js';
import { promptLimit, promptSizeProblem } from '../../services/sent-prompts.js';
import type { ServeDeps } from '../deps.js';
import { ErrorBody, HttpError } from '../errors.js';
import {
  Batch,
  BatchCounts,
  BatchIdParam,
  BatchOutcome,
  BatchProgress,
  BatchTask,
  json,
  StartBatchBody,
} from '../schemas.js';
import { plural } from '../../render/quantities.js';

const BatchRow = Batch.extend({ counts: BatchCounts }).meta({ id: 'BatchRow' });
const BatchDetail = Batch.extend({ counts: BatchCounts, tokens: Tokens }).meta({ id: 'BatchDetail' });
const BatchResult = z
  .object({
    task: BatchTask,
    outcome: BatchOutcome,
    summary: z
      .string()
      .openapi({ description: "the answer's first line of words (the error's, for a task that failed)" }),
  })
  .openapi('BatchResult');

const unknownBatch = (id: string) => new HttpError(404, `Unknown batch "${id}". GET /batch lists batches.`);
const notFound = { 404: json(ErrorBody, 'no such batch') };

const list = createRoute({
  method: 'get',
  path: '/batch',
  summary: 'Batches, newest first, with how many tasks are in each status',
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(1000).optional().openapi({ description: 'how many (default 50)' }),
    }),
  },
  responses: { 200: json(z.array(BatchRow), 'the batches'), 400: json(ErrorBody, 'invalid query') },
});

const get = createRoute({
  method: 'get',
  path: '/batch/{id}',
  summary: 'One batch, with its counts and the tokens its tasks used so far',
  request: { params: BatchIdParam },
  responses: { 200: json(BatchDetail, 'the batch'), ...notFound },
});

const results = createRoute({
  method: 'get',
  path: '/batch/{id}/results',
  summary: 'Its tasks and what became of each, in task order, as `loom batch results` lists them',
  request: {
    params: BatchIdParam,
    query: z.object({
      from: z.coerce.number().int().min(0).optional().openapi({ description: 'the first task index (default 0)' }),
      limit: z.coerce.number().int().min(1).max(1000).optional().openapi({ description: 'how many (default 100)' }),
    }),
  },
  responses: {
    200: json(z.array(BatchResult), 'the tasks with their outcomes'),
    400: json(ErrorBody, 'invalid query'),
    ...notFound,
  },
});

const start = createRoute({
  method: 'post',
  path: '/batch',
  summary: 'Start a batch, as `loom batch run` does with a JSONL file; returns its id at once',
  request: { body: { content: { 'application/json': { schema: StartBatchBody } }, required: true } },
  responses: {
    201: json(z.object({ id: z.string(), total: z.number() }).openapi('BatchStarted'), 'the batch was started'),
    400: json(ErrorBody, 'invalid body, unknown agent or model, prompt too large'),
  },
});

const controlled = {
  200: json(BatchProgress, "the batch's progress after the change"),
  ...notFound,
  409: json(ErrorBody, 'the batch is no longer running, or is being cancelled'),
};

const controlRoute = (action: 'pause' | 'resume' | 'cancel', summary: string) =>
  createRoute({
    method: 'post',
    path: `/batch/{id}/${action}`,
    summary,
    request: { params: BatchIdParam },
    responses: controlled,
  });

const concurrency = createRoute({
  method: 'post',
  path: '/batch/{id}/concurrency',
  summary: 'Change how many tasks run at once',
  request: {
    params: BatchIdParam,
    body: {
      content: {
        'application/json': { schema: z.object({ concurrency: z.number().int().min(1) }).openapi('BatchConcurrency') },
      },
      required: true,
    },
  },
  responses: { ...controlled, 400: json(ErrorBody, 'invalid body') },
});

/** Batches: reads from the store; starting and controlling one go to Temporal, as `loom batch` does. */
export function registerBatchRoutes(app: OpenAPIHono, deps: ServeDeps): void {
  const { store, env } = deps;
  const existing = async (id: string) => {
    const batch = await store.getBatch(id);
    if (!batch) throw unknownBatch(id);
    return batch;
  };

  /** Sends a control to the batch's run through the update `loom batch pause|resume|cancel|concurrency` uses. */
  const control = async (id: string, change: BatchControl) => {
    const batch = await existing(id);
    const ended = endedBatchMessage(batch, await store.batchCounts(id), change.action);
    if (ended) throw new HttpError(409, ended);
    try {
      return await controlBatch(await deps.client(), id, change);
    } catch (error) {
      if (error instanceof BatchControlError) throw new HttpError(409, error.message);
      throw error;
    }
  };

  app.openapi(list, async (c) => {
    const batches = await store.listBatches(c.req.valid('query').limit ?? 50);
    return c.json(
      await Promise.all(batches.map(async (batch) => ({ ...batch, counts: await store.batchCounts(batch.id) }))),
      200,
    );
  });

  app.openapi(get, async (c) => {
    const batch = await existing(c.req.valid('param').id);
    return c.json(
      { ...batch, counts: await store.batchCounts(batch.id), tokens: await batchTokens(store, batch.id) },
      200,
    );
  });

  app.openapi(results, async (c) => {
    const { id } = c.req.valid('param');
    const { from, limit } = c.req.valid('query');
    await existing(id);
    const entries = await withSpentTokens(store, await store.batchTasks(id, { from: from ?? 0, limit: limit ?? 100 }));
    return c.json(
      entries.map((entry) => ({ ...entry, summary: outcomeSummary(entry.outcome) })),
      200,
    );
  });

  app.openapi(start, async (c) => {
    const body = c.req.valid('json');
    const directory = resolve(deps.defaultDirectory, body.directory ?? '.');
    const project = await loadPersonProject(store, directory, env, deps.dataDir);
    const agent = chooseAgent(body.agent, project);
    const model = checkModelFlag(body.model);
    const budgets = {
      budget: budgetFromInput({
        tokens: { name: 'maxTokens', value: body.maxTokens },
        cost: { name: 'maxCost', value: body.maxCost },
      }),
      taskBudget: budgetFromInput({
        tokens: { name: 'taskMaxTokens', value: body.taskMaxTokens },
        cost: { name: 'taskMaxCost', value: body.taskMaxCost },
      }),
    };
    checkBatchBudgetPrices(
      [budgets.budget, budgets.taskBudget],
      body.tasks.map((task) => task.model ?? model),
      () => chooseModel(undefined, agent, project, env, SERVER_NAMES_MODEL),
      project.config,
    );
    const maxPromptBytes = promptLimit(env, project.config);
    // Every task is checked before anything is stored, as `loom batch run` checks every line.
    const problems = body.tasks.flatMap((task, index) => {
      const problem = !task.prompt.trim() ? 'empty prompt' : promptSizeProblem(task.prompt, maxPromptBytes);
      return problem ? [`tasks.${index}: ${problem}`] : [];
    });
    if (problems.length)
      throw new HttpError(400, `${plural(problems.length, 'bad task')}: ${problems.slice(0, 20).join('; ')}`);
    for (const task of body.tasks) {
      if (task.agent) chooseAgent(task.agent, project);
      if (task.model) checkModelFlag(task.model);
    }
    const { batch } = await startBatch(await deps.client(), store, {
      tasks: body.tasks,
      source: titleFromTasks(body.tasks),
      sourceBytes: JSON.stringify(body.tasks).length,
      directory,
      host: deps.hostId,
      agent,
      model,
      concurrency: body.concurrency ?? 8,
      retries: body.retries ?? 1,
      taskQueue: deps.taskQueue,
      modelRetry: modelRetryFromEnv(env),
      webUrl: deps.webUrl,
      searchAttributes: await deps.searchAttributes(),
      isolate: body.isolate,
      taskTimeout: body.taskTimeout,
      ...budgets,
    });
    return c.json({ id: batch.id, total: batch.total }, 201);
  });

  for (const [action, summary] of [
    ['pause', 'Pause a batch: running tasks finish, no new ones start'],
    ['resume', 'Resume a paused batch'],
    ['cancel', 'Cancel a batch: running tasks are cancelled, finished results are kept'],
  ] as const) {
    app.openapi(controlRoute(action, summary), async (c) =>
      c.json(await control(c.req.valid('param').id, { action }), 200),
    );
  }

  app.openapi(concurrency, async (c) => {
    const { id } = c.req.valid('param');
    return c.json(await control(id, { action: 'concurrency', value: c.req.valid('json').concurrency }), 200);
  });
}
