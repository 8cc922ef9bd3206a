import { z } from '@hono/zod-openapi';
import {
  BatchRecord as CoreBatchRecord,
  BatchStatus,
  BatchTaskInput as CoreBatchTaskInput,
  BatchTaskOutcome as CoreBatchTaskOutcome,
  TaskStatus,
} from '../../core/batch/batch.js';
import { Tokens } from '../../core/records/message.js';
import {
  PermissionReplyKind,
  PermissionRequestRecord as CorePermissionRequestRecord,
} from '../../core/rules/permission-request.js';
import { Session as CoreSession } from '../../core/records/session.js';
import { ServedSession } from './opencode/shapes.js';
import { ModelRef, openCodePromptFields } from './opencode/prompt-body.js';

// The core schemas are the one source of the shapes; here they only get component names. `.meta`,
// not `.openapi`: they may be built before @hono/zod-openapi adds `.openapi` to zod's schemas.
export const Session = CoreSession.meta({ id: 'Session' });
/** Messages as the server sends them: assistant messages carry OpenCode's fields too (see opencode/shapes.ts). */
export { ServedMessageWithParts as MessageWithParts } from './opencode/shapes.js';

/** What a session's work waits for (see session-waits.ts): a worker on the task queue, or on the session's host. */
export const WorkWait = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('worker'), taskQueue: z.string(), message: z.string() }),
    z.object({ type: z.literal('host'), host: z.string(), message: z.string() }),
  ])
  .openapi('WorkWait', {
    description:
      "`worker`: no worker polls the task queue while the session has a run open (a session just started is known before any worker stores it); `host`: no worker serves the machine that holds the session's workspace",
  });

export const SessionWithWait = ServedSession.extend({ waiting: WorkWait.optional() }).meta({ id: 'SessionWithWait' });

/** A project folder of the stored sessions, as the web view's project selector lists them. */
export const Project = z
  .object({
    directory: z.string(),
    sessions: z.number().openapi({ description: 'its root sessions' }),
    updated: z.number().optional().openapi({ description: 'when its latest session was updated (ms)' }),
    current: z.boolean().openapi({ description: 'the folder `loom serve` runs in: where a session starts by default' }),
  })
  .openapi('Project');

export const SessionIdParam = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'ses_…' }),
});

export const Usage = z.object({ tokens: Tokens, cost: z.number() }).openapi('Usage');

export const Budget = z
  .object({ tokens: z.number().optional(), cost: z.number().optional() })
  .openapi('Budget', { description: "what the session's tree may spend in all: tokens, and dollars" });

export interface SessionNodeShape {
  session: z.infer<typeof Session>;
  own: z.infer<typeof Usage>;
  tree: z.infer<typeof Usage>;
  budget?: z.infer<typeof Budget>;
  children: SessionNodeShape[];
}

/** A session with its subagents' sessions: `own` is its usage, `tree` its subtree's. */
export const SessionNode: z.ZodType<SessionNodeShape> = z
  .object({
    session: Session,
    own: Usage,
    tree: Usage,
    budget: Budget.optional(),
    get children(): z.ZodArray<z.ZodType<SessionNodeShape>> {
      return z.array(SessionNode);
    },
  })
  .openapi('SessionNode');

/** A run's time limit, as `--timeout` gives it. */
const timeout = z.number().int().positive().optional().openapi({
  description:
    'milliseconds the run may take; past it the run is cancelled and fails with RunTimedOut (its work is kept)',
  example: 300000,
});

export const StartBody = z
  .object({
    prompt: z.string().min(1).optional().openapi({
      description:
        "the first prompt: the session starts at once (201 `{id}`); without it, OpenCode's `session.create`: an idle session with no run yet (200, the session), which its first prompt starts",
    }),
    agent: z.string().optional(),
    model: z.string().optional().openapi({ example: 'openai/gpt-4.1' }),
    directory: z.string().optional().openapi({
      description:
        "the project directory on the server's machine (default: the `directory` query, else where `loom serve` runs)",
    }),
    title: z.string().optional(),
    parentID: z
      .string()
      .optional()
      .openapi({ description: "OpenCode's: refused (400), Loom's subagent sessions come from task calls" }),
    ...budgetFields('the session and its subagents'),
    timeout,
  })
  .openapi('StartSession');

export const PromptBody = z
  .object({
    prompt: z.string().min(1).optional().openapi({
      description: "Loom's form: the prompt is sent and the answer is 202 at once (send this or `parts`)",
    }),
    parts: openCodePromptFields.parts.optional().openapi({
      description:
        "OpenCode's form (`session.prompt`): `text` parts; the request waits for the turn to end and answers with its last assistant message",
    }),
    agent: z.string().optional(),
    model: z
      .union([z.string(), ModelRef])
      .optional()
      .openapi({ description: '`provider/model`, or `{providerID, modelID}`' }),
    messageID: openCodePromptFields.messageID,
    noReply: openCodePromptFields.noReply,
    system: openCodePromptFields.system,
    tools: openCodePromptFields.tools,
    ...budgetFields("the session's tree from now on (above what it has spent)"),
    timeout: timeout.openapi({
      description: 'as for a new session; applies to the run this prompt starts (an idle session)',
    }),
  })
  .openapi('PromptSession');

/** `maxTokens` and `maxCost`, as `--max-tokens` and `--max-cost`. */
function budgetFields(what: string) {
  return {
    maxTokens: z
      .number()
      .int()
      .positive()
      .optional()
      .openapi({ description: `a token budget for ${what}` }),
    maxCost: z
      .number()
      .positive()
      .optional()
      .openapi({ description: `a budget in dollars for ${what} (needs the models' prices)` }),
  };
}

export const Started = z.object({ id: z.string() }).openapi('Started');

/** A JSON response of a route. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});

// Permissions and batches.

export const PermissionRequest = CorePermissionRequestRecord.meta({ id: 'PermissionRequest' });

const replyFields = {
  message: z
    .string()
    .optional()
    .openapi({ description: 'with `reject` only: feedback the model sees, and the turn goes on' }),
};
const messageOnlyWithReject = (body: { message?: string }, reply: string) =>
  body.message === undefined || reply === 'reject';
const messageIssue = { message: 'message goes with reject: it is the feedback the agent sees', path: ['message'] };

export const PermissionReplyBody = z
  .object({ reply: PermissionReplyKind, ...replyFields })
  .refine((body) => messageOnlyWithReject(body, body.reply), messageIssue)
  .openapi('PermissionReply');

/** OpenCode's older, session-scoped shape: `response` instead of `reply`. */
export const SessionPermissionBody = z
  .object({ response: PermissionReplyKind, ...replyFields })
  .refine((body) => messageOnlyWithReject(body, body.response), messageIssue)
  .openapi('SessionPermissionReply');

export const Batch = CoreBatchRecord.meta({ id: 'Batch' });
export const BatchTask = CoreBatchTaskInput.meta({ id: 'BatchTask' });
export const BatchOutcome = CoreBatchTaskOutcome.meta({ id: 'BatchOutcome' });

export const BatchCounts = z.record(TaskStatus, z.number()).openapi('BatchCounts');

export const BatchProgress = z
  .object({
    batchId: z.string(),
    status: BatchStatus,
    total: z.number(),
    done: z.number(),
    failed: z.number(),
    cancelled: z.number(),
    running: z.number(),
    pending: z.number(),
    concurrency: z.number(),
    tokens: Tokens,
    started: z.number(),
  })
  .openapi('BatchProgress');

export const StartBatchBody = z
  .object({
    tasks: z.array(BatchTask).min(1),
    agent: z.string().optional(),
    model: z.string().optional().openapi({ example: 'openai/gpt-4.1' }),
    concurrency: z.number().int().min(1).optional().openapi({ description: 'tasks running at once (default 8)' }),
    retries: z.number().int().min(0).optional().openapi({ description: 'attempts after a failed one (default 1)' }),
    taskTimeout: timeout.openapi({ description: "milliseconds each task's run may take, for tasks without a timeout" }),
    ...budgetFields('all the tasks together'),
    taskMaxTokens: budgetFields('').maxTokens.openapi({
      description: "a token budget for each task's session and its subagents",
    }),
    taskMaxCost: budgetFields('').maxCost.openapi({
      description: "a budget in dollars for each task's session and its subagents",
    }),
    directory: z
      .string()
      .optional()
      .openapi({ description: "the project directory on the server's machine (default: where `loom serve` runs)" }),
    isolate: z.boolean().optional().openapi({
      description: 'each task works in its own copy of the project, applied with `loom batch apply` (default false)',
    }),
  })
  .openapi('StartBatch');

export const BatchIdParam = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'bat_…' }),
});
