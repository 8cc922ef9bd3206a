import { resolve } from 'node:path';
import { checkTaskDirectories } from '../../services/batch-directories.js';
import { readBatchFile, startBatch } from '../../services/batches.js';
import { InputError } from '../../input-error.js';
import type { ClientContext } from '../../context.js';
import { checkModelFlag, chooseModel, modelRetryFromEnv } from '../../services/model-choice.js';
import { checkBatchBudgetPrices } from '../../services/budgets.js';
import { budgetFlags, cliChecked } from '../budget-flags.js';

const TASK_FLAGS = { tokens: '--task-max-tokens', cost: '--task-max-cost' };
import { chooseAgent, loadProjectAgents } from '../../services/project-agents.js';
import { promptLimit } from '../../services/sent-prompts.js';
import { confirmWaitingConfig } from '../config.js';
import { plural } from '../../render/quantities.js';
import { timeoutFlag } from '../../timeout-flag.js';
import { followBatch } from './follow.js';

export interface BatchRunOptions {
  agent?: string;
  model?: string;
  concurrency?: string;
  retries?: string;
  dir?: string;
  json?: boolean;
  isolate?: boolean;
  maxTokens?: string;
  maxCost?: string;
  taskMaxTokens?: string;
  taskMaxCost?: string;
  taskTimeout?: string;
}

/** `loom batch run <file.jsonl>`: starts a batch and follows it with a progress bar. */
export async function batchRunCommand(context: ClientContext, file: string, options: BatchRunOptions): Promise<number> {
  const taskTimeout = timeoutFlag(options.taskTimeout, '--task-timeout');
  const directory = resolve(options.dir ?? process.cwd());
  const files = await confirmWaitingConfig(context, directory, { json: options.json });
  const project = loadProjectAgents(directory, context.env, context.settings.dataDir, files);
  const { tasks, bytes } = readBatchFile(resolve(file), promptLimit(context.env, project.config));
  // Before Temporal is reached: a bad folder is the file's fault, whatever the server's state.
  checkTaskDirectories(directory, tasks);
  const agent = chooseAgent(options.agent, project);
  for (const [index, task] of tasks.entries()) {
    if (task.agent) chooseAgent(task.agent, project);
    if (task.model) checkModelFlag(task.model);
    if (!task.prompt.trim()) throw new InputError(`${file}:${index + 1}: empty prompt`);
  }
  const budget = budgetFlags(options);
  const taskBudget = budgetFlags({ maxTokens: options.taskMaxTokens, maxCost: options.taskMaxCost }, TASK_FLAGS);
  cliChecked(() =>
    checkBatchBudgetPrices(
      [budget, taskBudget],
      tasks.map((task) => task.model ?? options.model),
      () => chooseModel(undefined, agent, project, context.env),
      project.config,
    ),
  );
  const { client, searchAttributes } = await context.temporal();
  await context.ensureWorker();
  const { batch, handle } = await startBatch(client, context.store, {
    tasks,
    source: file,
    sourceBytes: bytes,
    directory,
    host: context.hostId,
    agent,
    model: checkModelFlag(options.model),
    concurrency: wholeNumber('--concurrency', options.concurrency ?? '8', 1),
    retries: wholeNumber('--retries', options.retries ?? '1', 0),
    taskQueue: context.settings.taskQueue,
    modelRetry: modelRetryFromEnv(context.env),
    webUrl: context.settings.webUrl,
    searchAttributes,
    isolate: options.isolate,
    ...(budget ? { budget } : {}),
    ...(taskBudget ? { taskBudget } : {}),
    taskTimeout,
  });
  context.report(
    `Batch ${batch.id}: ${plural(batch.total, 'task')} from ${file} · agent ${agent} · concurrency ${batch.concurrency}${batch.isolation ? ' · each task in a copy of the project' : ''} · Ctrl-C leaves it running`,
  );
  return followBatch(context, handle, batch, { quiet: options.json });
}

export function wholeNumber(flag: string, value: string, minimum: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < minimum)
    throw new InputError(`${flag} must be a whole number of at least ${minimum}, not "${value}".`);
  return number;
}
