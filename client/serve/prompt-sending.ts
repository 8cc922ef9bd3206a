import { cancellingRun } from '../services/cancelled-prompts.js';
import { budgetBeforeResume, budgetFromInput, checkBudgetPrices } from '../services/budgets.js';
import { checkModelFlag, modelRetryFromEnv } from '../services/model-choice.js';
import { chooseAgent, loadPersonProject } from '../services/project-agents.js';
import { checkPromptSize, promptLimit } from '../services/sent-prompts.js';
import { resumeSession, type SentPrompt } from '../services/sessions.js';
import type { Session } from '../../core/records/session.js';
import type { ServeDeps } from './deps.js';
import { HttpError, unknownSession } from './errors.js';

/** What a prompt route was sent, whichever shape (Loom's `prompt`, OpenCode's `parts`) it came in. */
export interface PromptRequest {
  prompt: string;
  agent?: string;
  /** `provider/model` */
  model?: string;
  timeout?: number;
  maxTokens?: number;
  maxCost?: number;
}

export const BUDGET_FIELD_NAMES = { tokens: 'maxTokens', cost: 'maxCost' };

export function budgetOfBody(body: { maxTokens?: number; maxCost?: number }) {
  return budgetFromInput({
    tokens: { name: BUDGET_FIELD_NAMES.tokens, value: body.maxTokens },
    cost: { name: BUDGET_FIELD_NAMES.cost, value: body.maxCost },
  });
}

/** The stored session a prompt goes to, or the 404 naming it. */
export async function promptedSession(deps: ServeDeps, id: string): Promise<Session> {
  const session = await deps.store.getSession(id);
  if (!session) throw unknownSession(id);
  return session;
}

/**
 * Sends a prompt as `loom resume` does (an idle session starts a new run, a busy one queues it),
 * after the checks that name what is wrong: the agent, the model, the prompt's size, the budget.
 */
export async function sendPromptTo(deps: ServeDeps, session: Session, request: PromptRequest): Promise<SentPrompt> {
  const { store, env } = deps;
  const id = session.id;
  const model = checkModelFlag(request.model);
  const project = await loadPersonProject(store, session.directory, env, deps.dataDir);
  const agent = request.agent ? chooseAgent(request.agent, project) : undefined;
  const maxPromptBytes = promptLimit(env, project.config);
  checkPromptSize(request.prompt, maxPromptBytes, `session ${id}`);
  const budget = budgetOfBody(request);
  if (budget) checkBudgetPrices(budget, model ?? session.model, project.config, id);
  const spent = await budgetBeforeResume(store, id, budget, BUDGET_FIELD_NAMES);
  if (spent) throw new HttpError(409, spent);
  const client = await deps.client();
  // A run being cancelled would drop a prompt queued into it; `loom resume` waits for it to
  // close, a request that returns at once cannot, so it says so and the caller sends again.
  if (await cancellingRun(client, id))
    throw new HttpError(409, `Session ${id} is being cancelled; send the prompt again once it is no longer busy.`);
  return resumeSession(client, store, session, {
    prompt: request.prompt,
    agent,
    model,
    maxPromptBytes,
    timeoutMs: request.timeout,
    host: deps.hostId,
    taskQueue: deps.taskQueue,
    modelRetry: modelRetryFromEnv(env),
    webUrl: deps.webUrl,
    searchAttributes: await deps.searchAttributes(),
  });
}
