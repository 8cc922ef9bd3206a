import { loadConfig } from '../activities/config/load.js';
import { MODEL_ID_FORM, parseModelId } from '../core/model-id.js';
import type { ModelRetry } from '../core/run.js';
import { defaultModelRetry } from '../core/run.js';
import { CliError } from './cli-error.js';

export const OPENAI_DEFAULT_MODEL = 'openai/gpt-4.1';

/** The model for a new session: `--model`, else config `model`, else `LOOM_MODEL`, else OpenAI's default with a key. */
export function chooseModel(flag: string | undefined, directory: string, env: NodeJS.ProcessEnv): string {
  const model = flag ?? configuredModel(directory, env) ?? env.LOOM_MODEL ?? (env.OPENAI_API_KEY ? OPENAI_DEFAULT_MODEL : undefined);
  if (!model) {
    throw new CliError(`No model given. Pass --model (${MODEL_ID_FORM}), set "model" in loom.json, or set OPENAI_API_KEY.`);
  }
  try {
    parseModelId(model);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  return model;
}

function configuredModel(directory: string, env: NodeJS.ProcessEnv): string | undefined {
  try {
    return loadConfig(directory, env).model;
  } catch (error) {
    throw new CliError((error as Error).message);
  }
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
  if (!Number.isInteger(number) || number < 1) throw new CliError(`${name} must be a positive integer, got "${value}"`);
  return number;
}
