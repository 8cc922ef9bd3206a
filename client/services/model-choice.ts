import { parseModelId } from '../../core/models/model-id.js';
import { defaultModelRetry, type ModelRetry } from '../../core/runs/run.js';
import type { LoomConfig } from '../../core/config/config.js';
import { MissingKeyError, providerFor } from '../../activities/model/provider.js';
import { configuredModel, noModelMessage } from '../../activities/config/project-agents.js';
import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';
import type { ProjectAgents } from './project-agents.js';

/** Checks the form of `--model`; the run itself picks a model when none is given. */
export function checkModelFlag(flag: string | undefined): string | undefined {
  if (flag === undefined) return undefined;
  try {
    parseModelId(flag);
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  return flag;
}

/** Model retry settings from `LOOM_MODEL_MAX_ATTEMPTS` and `LOOM_MODEL_RETRY_INITIAL_MS`. */
export function modelRetryFromEnv(env: NodeJS.ProcessEnv): ModelRetry | undefined {
  const attempts = env.LOOM_MODEL_MAX_ATTEMPTS;
  const initial = env.LOOM_MODEL_RETRY_INITIAL_MS;
  if (!attempts && !initial) return undefined;
  const retry = {
    ...defaultModelRetry,
    ...(attempts ? { maximumAttempts: positiveInteger('LOOM_MODEL_MAX_ATTEMPTS', attempts) } : {}),
    ...(initial ? { initialIntervalMs: positiveInteger('LOOM_MODEL_RETRY_INITIAL_MS', initial) } : {}),
  };
  return { ...retry, maximumIntervalMs: Math.max(retry.initialIntervalMs, retry.maximumIntervalMs) };
}

function positiveInteger(name: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new InputError(`${name} must be a positive integer, got "${value}"`);
  return number;
}

/** How a request to `loom serve` names a model (the CLI's way is `--model`). */
export const SERVER_NAMES_MODEL = 'send "model": "provider/model"';

/**
 * The model a new session runs on, decided here, where the user typed the command, and pinned in
 * the run: `--model`, the agent's, loom.json's, `LOOM_MODEL`, else the first provider key set in
 * this shell. A worker elsewhere never swaps in a default of its own.
 */
export function chooseModel(
  flag: string | undefined,
  agent: string,
  project: ProjectAgents,
  env: NodeJS.ProcessEnv,
  /** How this caller names a model, for the error when nothing does. */
  nameOne?: string,
): string {
  const model =
    flag ?? project.agents.find((candidate) => candidate.name === agent)?.model ?? configuredModel(project.config, env);
  if (!model) throw new InputError(noModelMessage(nameOne));
  return checkModelFlag(model)!;
}

/**
 * Checks the model's provider with this shell's environment before anything starts. Every
 * mistake but a missing key is an error; a missing key is returned: the run may go to a worker
 * started elsewhere, which reads its own environment (see `reportMissingKey`).
 */
export function checkProviderHere(model: string, config: LoomConfig, env: NodeJS.ProcessEnv): string | undefined {
  try {
    providerFor(model, config, env);
    return undefined;
  } catch (error) {
    if (error instanceof MissingKeyError) return error.message;
    throw new InputError((error as Error).message);
  }
}

/** A key missing here fails the command when this process runs the session, else it is a warning. */
export function reportMissingKey(context: ClientContext, problem: string | undefined): void {
  if (!problem) return;
  if (context.hasInProcessWorker) throw new InputError(problem);
  context.report(
    `warning: ${problem} A worker is already running on task queue "${context.settings.taskQueue}": the run goes to it, and its model calls use the key of that worker's environment.`,
  );
}
