import { resolve } from 'node:path';
import type { CliContext } from '../context.js';
import { checkProviderHere, chooseModel, modelRetryFromEnv, reportMissingKey } from '../services/model-choice.js';
import { warnOfUnknownCommand } from '../slash-commands.js';
import { chooseAgent, loadProjectAgents } from '../services/project-agents.js';
import { checkPromptSize, promptLimit } from '../services/prompts.js';
import { startSession } from '../services/sessions.js';
import { watchRun } from '../follow/watch-run.js';
import { budgetFlags, cliChecked } from './budget-flags.js';
import { checkBudgetPrices } from '../services/budgets.js';
import { timeoutFlag } from '../timeout-flag.js';
import { printOutcome } from './outcome.js';

export interface RunOptions {
  agent?: string;
  model?: string;
  title?: string;
  dir?: string;
  maxTokens?: string;
  maxCost?: string;
  timeout?: string;
  json?: boolean;
}

/** `loom run "<prompt>"`: a new session, followed until its answer. */
export async function runCommand(context: CliContext, prompt: string, options: RunOptions): Promise<number> {
  const timeoutMs = timeoutFlag(options.timeout);
  const directory = resolve(options.dir ?? process.cwd());
  const project = loadProjectAgents(directory, context.env, context.settings.dataDir);
  const agent = chooseAgent(options.agent, project);
  const model = chooseModel(options.model, agent, project, context.env);
  const missingKey = checkProviderHere(model, project.config, context.env);
  const budget = budgetFlags(options);
  cliChecked(() => checkBudgetPrices(budget, model, project.config, 'the new session'));
  const maxPromptBytes = promptLimit(directory, context.env);
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
  const outcome = await watchRun(context, handle, sessionId, 0, { quiet: Boolean(options.json) });
  return printOutcome(context, outcome, Boolean(options.json));
}
