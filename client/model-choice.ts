import { parseModelId } from '../core/model-id.js';
import { defaultModelRetry, type ModelRetry } from '../core/run.js';
import { CliError } from './cli-error.js';

/** Checks the form of `--model`; the run itself picks a model when none is given. */
export function checkModelFlag(flag: string | undefined): string | undefined {
  if (flag === undefined) return undefined;
  try {
    parseModelId(flag);
  } catch (error) {
    throw new CliError((error as Error).message);
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
  if (!Number.isInteger(number) || number < 1) throw new CliError(`${name} must be a positive integer, got "${value}"`);
  return number;
}
