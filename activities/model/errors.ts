import { ApplicationFailure } from '@temporalio/common';
import { APICallError, LoadAPIKeyError } from 'ai';
import { ConfigError } from '../config/load.js';
import { ProviderError } from './provider.js';
import { ModelStreamIdleError } from './stream-watchdog.js';
import { RateLimitWaitError } from './rate-gates.js';
import { errorMessage } from '../../core/text/error-message.js';
import { ModelFailure, SETUP_HINTS, setupProblem } from './failure-kinds.js';

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
