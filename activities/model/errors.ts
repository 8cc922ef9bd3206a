import { ApplicationFailure } from '@temporalio/common';
import { APICallError, LoadAPIKeyError } from 'ai';
import { ConfigError } from '../config/load.js';
import { ProviderError } from './provider.js';
import { ModelStreamIdleError } from './stream-watchdog.js';
import { RateLimitWaitError } from './rate-gates.js';
import { errorMessage } from '../../core/error-message.js';

/** Failure types the workflow, retry policies and the CLI act on. */
export const ModelFailure = {
  auth: 'ModelAuthError',
  badRequest: 'ModelBadRequest',
  notFound: 'ModelNotFound',
  contextOverflow: 'ContextOverflow',
  rateLimited: 'ModelRateLimited',
  /** A 429 that waiting will not fix: the account is out of credit. */
  quota: 'ModelQuotaExceeded',
  server: 'ModelServerError',
  unreachable: 'ModelUnreachable',
  /** The answer stopped arriving (no byte for the configured time): retried like a network error. */
  streamIdle: 'ModelStreamIdle',
  /** No text, reasoning or tool call, however often asked: retrying the same request will not help. */
  emptyResponse: 'ModelEmptyResponse',
  config: 'ConfigError',
  other: 'ModelError',
} as const;

/**
 * How providers say the prompt is too long: OpenAI and vLLM (`context_length_exceeded`, "maximum
 * context length"), Anthropic ("prompt is too long"), Gemini ("input token count … exceeds the
 * maximum number of tokens"), llama.cpp and Ollama ("exceeds the available context size").
 */
const OVERFLOW =
  /context[_ ]length|maximum context|context window|too many tokens|prompt is too long|exceeds the context|exceeds the maximum number of tokens|context size/i;

/**
 * Turns an error from a model call into an `ApplicationFailure` whose type says what went wrong
 * and whether retrying can help: 400/401/403/404 and context overflow fail at once; rate limits,
 * 5xx, network errors and silent streams are retried (honouring `retry-after`).
 */
export function classifyModelError(error: unknown, model: string): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  // The AI SDK may wrap the watchdog's abort (in an APICallError, say); its message says more.
  const idle = findCause(error, ModelStreamIdleError);
  if (idle) return failure(ModelFailure.streamIdle, idle.message, true);
  if (error instanceof RateLimitWaitError) {
    return failure(
      ModelFailure.rateLimited,
      `${model}: ${error.message}`,
      true,
      429,
      Math.max(1, error.until - Date.now()),
    );
  }
  if (error instanceof ConfigError || error instanceof ProviderError) {
    return failure(ModelFailure.config, error.message, false);
  }
  if (LoadAPIKeyError.isInstance(error)) return failure(ModelFailure.auth, error.message, false);
  if (APICallError.isInstance(error)) return classifyApiError(error, model);
  const message = errorMessage(error);
  return failure(ModelFailure.other, `Model ${model} failed: ${message}`, true);
}

function classifyApiError(error: APICallError, model: string): ApplicationFailure {
  const status = error.statusCode;
  const detail = `${model} at ${error.url}: ${status ? `HTTP ${status} ` : ''}${error.message}`;
  // No status, or a stream that broke after a 200: the network failed, not the request.
  if (status === undefined || status < 400) {
    const setup = setupProblem(error);
    return failure(ModelFailure.unreachable, `Cannot reach ${detail}${setup ? `: ${SETUP_HINTS[setup]}` : ''}`, true);
  }
  // 413: the request is larger than the provider takes (Anthropic's request_too_large): compacting helps.
  if (status === 413 || OVERFLOW.test(`${error.message} ${error.responseBody ?? ''}`)) {
    return failure(ModelFailure.contextOverflow, `Context overflow for ${detail}`, false, status);
  }
  if (status === 401 || status === 403)
    return failure(ModelFailure.auth, `Not authorized for ${detail}`, false, status);
  if (status === 404)
    return failure(
      ModelFailure.notFound,
      `Not found: ${detail} (check the model id, and the provider's options.baseURL)`,
      false,
      status,
    );
  if (
    status === 429 &&
    /insufficient_quota|exceeded your current quota/i.test(`${error.message} ${error.responseBody ?? ''}`)
  ) {
    return failure(ModelFailure.quota, `Quota exhausted for ${detail}`, false, status);
  }
  if (status === 429) {
    return failure(ModelFailure.rateLimited, `Rate limited by ${detail}`, true, status, retryAfterMs(error));
  }
  if (status >= 500)
    return failure(ModelFailure.server, `Server error from ${detail}`, true, status, retryAfterMs(error));
  if (status === 408 || status === 409)
    return failure(ModelFailure.server, `Transient error from ${detail}`, true, status);
  return failure(ModelFailure.badRequest, `Request rejected by ${detail}`, false, status);
}

/** Network failures that, on a session's first model call, mean a mistake in the set-up rather than an outage. */
export type SetupProblem = 'unknown-host' | 'refused';

const SETUP_HINTS: Record<SetupProblem, string> = {
  'unknown-host': "the host name does not resolve (check the provider's options.baseURL, or the network)",
  refused: "nothing is listening there (is the model server running? check the provider's options.baseURL)",
};

/** Attempts before a session that never reached its model gives up on an unknown host or a refused connection. */
export const SETUP_ATTEMPTS = 3;

/** Whether a failure's message says it looks like set-up (see `SETUP_HINTS`): such a call gives up early. */
export function hasSetupHint(message: string): boolean {
  return Object.values(SETUP_HINTS).some((hint) => message.includes(hint));
}

/** Whether a failed call looks like set-up: an unknown host, or a refused connection. */
export function setupProblem(error: unknown): SetupProblem | undefined {
  const codes = new Set<string>();
  const visit = (current: unknown, depth: number) => {
    if (!current || typeof current !== 'object' || depth > 10) return;
    const { code, cause, errors } = current as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string') codes.add(code);
    visit(cause, depth + 1);
    if (Array.isArray(errors)) for (const inner of errors) visit(inner, depth + 1);
  };
  visit(error, 0);
  if (codes.has('ENOTFOUND') || codes.has('EAI_AGAIN')) return 'unknown-host';
  if (codes.has('ECONNREFUSED')) return 'refused';
  return undefined;
}

/**
 * A session that has never reached its model does not wait out a long outage: after a few
 * attempts, a set-up problem fails the run, saying what to check.
 */
export function neverReachedFailure(
  classified: ApplicationFailure,
  sessionId: string,
  attempt: number,
): ApplicationFailure {
  return failure(
    ModelFailure.unreachable,
    `${classified.message}. Gave up after ${attempt} attempts: session ${sessionId} has never reached this model, so this looks like set-up rather than an outage. Fix it, then \`loom resume ${sessionId}\` runs the prompt again.`,
    false,
  );
}

function findCause<T>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (
    let current = error, depth = 0;
    current && depth < 10;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    if (current instanceof type) return current;
  }
  return undefined;
}

function failure(type: string, message: string, retryable: boolean, statusCode?: number, retryAfter?: number) {
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable: !retryable,
    details: [{ statusCode }],
    nextRetryDelay: retryAfter,
  });
}

/**
 * `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. "Now" (0 or a past date) is
 * left to the retry policy's backoff: Temporal takes a zero next-retry delay as "do not retry".
 */
function retryAfterMs(error: APICallError): number | undefined {
  const headers = error.responseHeaders ?? {};
  const ms = Number(headers['retry-after-ms']);
  if (Number.isFinite(ms) && ms > 0) return ms;
  const value = headers['retry-after'];
  if (!value) return undefined;
  const seconds = Number(value);
  const delay = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return delay > 0 ? delay : undefined;
}

/** An answer with nothing in it, `attempts` times in a row: the provider is not going to say more. */
export function emptyAnswerFailure(
  model: string,
  attempts: number,
  finish: string,
  what = 'answer',
): ApplicationFailure {
  return failure(
    ModelFailure.emptyResponse,
    `${model} returned an empty ${what} ${attempts} times in a row (no text, reasoning or tool call; last finish reason: ${finish})`,
    false,
  );
}

/**
 * A silent stream's failure says whether it is retried, so the CLI's retry notice and the error
 * stored after the last attempt both read right.
 */
export function noteRetry(
  classified: ApplicationFailure,
  attempt: number,
  maximumAttempts: number | undefined,
): ApplicationFailure {
  if (classified.type !== ModelFailure.streamIdle || classified.nonRetryable) return classified;
  const last = maximumAttempts !== undefined && maximumAttempts > 0 && attempt >= maximumAttempts;
  return failure(
    ModelFailure.streamIdle,
    `${classified.message}; ${last ? `gave up after ${attempt} attempts` : 'retrying'}`,
    true,
  );
}
