import { resolve } from 'node:path';
import type { ClientContext } from '../context.js';
import { checkProviderHere, chooseModel, modelRetryFromEnv, reportMissingKey } from '../services/model-choice.js';
import { warnOfUnknownCommand } from '../slash-commands.js';
import { chooseAgent, loadProjectAgents } from '../services/project-agents.js';
import { checkPromptSize, promptLimit } from '../services/sent-prompts.js';
import { startSession } from '../services/sessions.js';
import { runIdOf, watchRun } from '../follow/watch-run.js';
import { budgetFlags, cliChecked } from './budget-flags.js';
import { checkBudgetPrices } from '../services/budgets.js';
import { timeoutFlag } from '../timeout-flag.js';
import { printOutcome } from './outcome.js';
import { followTree } from './background-runs.js';
import { currentCursor } from '../follow/session-changes.js';
import { confirmWaitingConfig } from './config.js';

export interface RunOptions {
  agent?: string;
  model?: string;
  title?: string;
  dir?: string;
  maxTokens?: string;
  maxCost?: string;
  timeout?: string;
  json?: boolean;
  /** Leave background subagents still running when the run ends, rather than wait for them. */
  detach?: boolean;
}

/**
 * `loom run "<prompt>"`: a new session, followed until its answer, and then until the background
 * subagents it started (and the wake-up runs their reports start) are done, when this command runs the worker.
 */
export async function runCommand(context: ClientContext, prompt: string, options: RunOptions): Promise<number> {
  const timeoutMs = timeoutFlag(options.timeout);
  const directory = resolve(options.dir ?? process.cwd());
  const files = await confirmWaitingConfig(context, directory, { json: options.json });
  const project = loadProjectAgents(directory, context.env, context.settings.dataDir, files);
  const agent = chooseAgent(options.agent, project);
  const model = chooseModel(options.model, agent, project, context.env);
  const missingKey = checkProviderHere(model, project.config, context.env);
  const budget = budgetFlags(options);
  cliChecked(() => checkBudgetPrices(budget, model, project.config, 'the new session'));
  const maxPromptBytes = promptLimit(context.env, project.config);
  checkPromptSize(prompt, maxPromptBytes);
  warnOfUnknownCommand(context, prompt, project.config);
  const { client, searchAttributes } = await context.temporal();
  await context.ensureWorker();
  reportMissingKey(context, missingKey);
  const { sessionId, handle } = await startSession(client, context.store, {
    prompt,
    maxPromptBytes,
    agent,
    model,
    directory,
    host: context.hostId,
    title: options.title,
    taskQueue: context.settings.taskQueue,
    modelRetry: modelRetryFromEnv(context.env),
    webUrl: context.settings.webUrl,
    searchAttributes,
    ...(budget ? { budget } : {}),
    timeoutMs,
  });
  const json = Boolean(options.json);
  const outcome = await watchRun(context, handle, sessionId, 0, { quiet: json });
  const cursor = await currentCursor(context.store, sessionId);
  const exitCode = printOutcome(context, outcome, json);
  if (outcome.status !== 'detached') {
    const runId = runIdOf(handle);
    await followTree(context, {
      rootId: sessionId,
      sessionId,
      runId,
      since: 0,
      cursor,
      json,
      detach: Boolean(options.detach),
    });
  }
  return exitCode;
}
