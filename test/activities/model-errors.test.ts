import { ApplicationFailure } from '@temporalio/common';
import { APICallError, LoadAPIKeyError } from 'ai';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../activities/config/load.js';
import { classifyModelError } from '../../activities/model/errors.js';
import { ModelFailure } from '../../activities/model/failure-kinds.js';
import { ProviderError } from '../../activities/model/provider.js';

const MODEL = 'openai/gpt-4o';
const URL = 'https://api.example.test/v1/chat/completions';

function apiError(
  statusCode: number | undefined,
  options: { message?: string; body?: string; headers?: Record<string, string> } = {},
) {
  return new APICallError({
    message: options.message ?? `HTTP error ${statusCode ?? 'none'}`,
    url: URL,
    requestBodyValues: { model: 'gpt-4o' },
    statusCode,
    responseHeaders: options.headers,
    responseBody: options.body,
  });
}

function classify(error: unknown): ApplicationFailure {
  const failure = classifyModelError(error, MODEL);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  return failure;
}

describe('classifyModelError for HTTP errors', () => {
  it.each([
    [400, ModelFailure.badRequest, false],
    [401, ModelFailure.auth, false],
    [403, ModelFailure.auth, false],
    [404, ModelFailure.notFound, false],
    [408, ModelFailure.server, true],
    [429, ModelFailure.rateLimited, true],
    [500, ModelFailure.server, true],
    [503, ModelFailure.server, true],
  ])('HTTP %i is %s (retryable: %s)', (status, type, retryable) => {
    const failure = classify(apiError(status));
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(!retryable);
    expect(failure.details).toEqual([{ statusCode: status }]);
  });

  it('names the model, the URL and the status in the message', () => {
    const failure = classify(apiError(401, { message: 'Incorrect API key provided' }));
    expect(failure.message).toContain(MODEL);
    expect(failure.message).toContain(URL);
    expect(failure.message).toContain('HTTP 401');
    expect(failure.message).toContain('Incorrect API key provided');
  });

  it('recognises a context overflow from the response body and does not retry it', () => {
    const body = JSON.stringify({ error: { code: 'context_length_exceeded', message: 'Too long' } });
    const failure = classify(apiError(400, { message: 'Bad Request', body }));
    expect(failure.type).toBe(ModelFailure.contextOverflow);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain(MODEL);
  });

  it('treats an error without a status as an unreachable server and retries it', () => {
    const failure = classify(apiError(undefined, { message: 'Cannot connect to API: ECONNREFUSED' }));
    expect(failure.type).toBe(ModelFailure.unreachable);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain(MODEL);
    expect(failure.message).toContain(URL);
  });

  it('treats a stream that broke after HTTP 200 as a network failure and retries it', () => {
    const failure = classify(apiError(200, { message: 'terminated' }));
    expect(failure.type).toBe(ModelFailure.unreachable);
    expect(failure.nonRetryable).toBe(false);
  });
});

describe('classifyModelError retry delays', () => {
  it('takes retry-after-ms', () => {
    expect(classify(apiError(429, { headers: { 'retry-after-ms': '1500' } })).nextRetryDelay).toBe(1500);
  });

  it('takes retry-after in seconds', () => {
    expect(classify(apiError(429, { headers: { 'retry-after': '7' } })).nextRetryDelay).toBe(7000);
    expect(classify(apiError(503, { headers: { 'retry-after': '2' } })).nextRetryDelay).toBe(2000);
  });

  it('prefers retry-after-ms to retry-after', () => {
    expect(classify(apiError(429, { headers: { 'retry-after-ms': '250', 'retry-after': '9' } })).nextRetryDelay).toBe(
      250,
    );
  });

  it('takes retry-after as an HTTP date', () => {
    const inThirtySeconds = new Date(Date.now() + 30_000).toUTCString();
    const delay = classify(apiError(429, { headers: { 'retry-after': inThirtySeconds } })).nextRetryDelay as number;
    // toUTCString drops the milliseconds.
    expect(delay).toBeGreaterThan(28_000);
    expect(delay).toBeLessThanOrEqual(30_000);
  });

  it('leaves the delay to the retry policy without a usable header', () => {
    expect(classify(apiError(429)).nextRetryDelay).toBeUndefined();
    expect(classify(apiError(429, { headers: { 'retry-after': 'soon' } })).nextRetryDelay).toBeUndefined();
  });
});

describe('classifyModelError for other errors', () => {
  it('makes a missing API key a non-retryable auth error', () => {
    const failure = classify(new LoadAPIKeyError({ message: 'OpenAI API key is missing.' }));
    expect(failure).toMatchObject({
      type: ModelFailure.auth,
      nonRetryable: true,
      message: 'OpenAI API key is missing.',
    });
  });

  it('makes configuration and provider errors non-retryable config errors with their message', () => {
    expect(classify(new ConfigError('/p/loom.json: invalid configuration'))).toMatchObject({
      type: ModelFailure.config,
      nonRetryable: true,
      message: '/p/loom.json: invalid configuration',
    });
    expect(classify(new ProviderError('Unknown provider "x"'))).toMatchObject({
      type: ModelFailure.config,
      nonRetryable: true,
    });
  });

  it('retries any other error, naming the model', () => {
    const failure = classify(new Error('socket hang up'));
    expect(failure).toMatchObject({ type: ModelFailure.other, nonRetryable: false });
    expect(failure.message).toBe(`Model ${MODEL} failed: socket hang up`);
  });

  it('passes an ApplicationFailure through unchanged', () => {
    const original = ApplicationFailure.nonRetryable('already classified', 'Custom');
    expect(classifyModelError(original, MODEL)).toBe(original);
  });
});
