// The idle-stream watchdog, through the real model activity code: streamIntoMessage in a mock
// activity context, the real provider (AI SDK + watched fetch) and the scripted server on a real port.
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../activities/config/load.js';
import { ModelFailure } from '../../activities/model/failure-kinds.js';
import type { StreamedAnswer } from '../../activities/model/stream-answer.js';
import { DEFAULT_FIRST_BYTE_MS, DEFAULT_IDLE_MS, streamLimits } from '../../activities/model/stream-limits.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import {
  assistantMessage,
  failureOf,
  streamFromScript,
  type StreamOptions,
} from '../../testkit/model/model-activity.js';
import { startScriptedModel, type ScriptedModel } from '../../testkit/model/scripted-model.js';
import type { ScriptRule } from '../../testkit/model/scripted-model-script.js';

let dir: string;
let store: SqliteSessionStore;
let server: ScriptedModel;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loom-watchdog-'));
  store = new SqliteSessionStore(join(dir, 'loom.db'));
  server = await startScriptedModel();
});

afterEach(async () => {
  await server.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const message = assistantMessage('ses_watchdog');

/** One model call of the activity against the scripted server, configured as a user would. */
function callModel(rules: ScriptRule[], options: StreamOptions = {}): Promise<StreamedAnswer> {
  return streamFromScript(server, store, message, rules, options);
}

const partsText = async () =>
  (await store.parts(message.id)).map((part) => (part.type === 'text' ? part.text : part.type));

describe('a model stream that goes silent', () => {
  it('is aborted mid-answer after chunkTimeout and fails as a retryable ModelStreamIdle naming model, URL and limit', async () => {
    const failure = await failureOf(
      callModel([{ reply: { text: 'Hello there, friend', chunkSize: 5, stallAfterChunks: 3 } }], {
        limits: { chunkTimeout: 300 },
      }),
    );
    expect(failure.type).toBe(ModelFailure.streamIdle);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toMatch(/^scripted\/test-model sent nothing for 0\.3 s mid-answer, after \d+ bytes/);
    expect(failure.message).toContain(`${server.url}/chat/completions`);
    expect(failure.message).toContain('limit: provider.scripted.options.chunkTimeout');
    expect(failure.message).toMatch(/; retrying$/);
    // What arrived before the silence is kept, as for any broken stream.
    expect(await partsText()).toEqual(['Hello ther']);
  });

  it('keeps heartbeating while the stream is silent, and still aborts it', async () => {
    const activity = new MockActivityEnvironment();
    let heartbeats = 0;
    activity.on('heartbeat', () => heartbeats++);
    const failure = await failureOf(
      callModel([{ reply: { text: 'Hello', stallAfterChunks: 2 } }], { limits: { chunkTimeout: 1_500 }, activity }),
    );
    expect(failure.type).toBe(ModelFailure.streamIdle);
    expect(heartbeats).toBeGreaterThan(0);
  });

  it('gives the first byte its own, longer limit, and lets a slow start and short pauses through', async () => {
    const limits = { chunkTimeout: 500, firstChunkTimeout: 1_500 };
    // Slower to start than the idle limit, and pausing under it: not cut off.
    const answer = await callModel(
      [
        {
          reply: {
            text: 'Hello there, friend',
            chunkSize: 5,
            delayMs: 700,
            chunkDelayMs: 50,
            stallAfterChunks: 2,
            stallMs: 300,
          },
        },
      ],
      { limits },
    );
    expect(answer).toMatchObject({ text: 'Hello there, friend', finish: 'stop' });
    // Headers sent, then nothing: the first-byte limit applies, not the idle one.
    const failure = await failureOf(callModel([{ reply: { text: 'Hello', stallAfterChunks: 0 } }], { limits }));
    expect(failure.type).toBe(ModelFailure.streamIdle);
    expect(failure.message).toContain('sent nothing for 1.5 s after the request, before the first byte of its answer');
    expect(failure.message).toContain('limit: provider.scripted.options.firstChunkTimeout');
  });

  it('covers a server that does not even send its headers', async () => {
    const failure = await failureOf(
      callModel([{ reply: { text: 'Hello', delayMs: 60_000 } }], { limits: { firstChunkTimeout: 300 } }),
    );
    expect(failure.type).toBe(ModelFailure.streamIdle);
    expect(failure.message).toContain('before the first byte');
  });

  it('says on the last attempt that it gave up', async () => {
    const failure = await failureOf(
      callModel([{ reply: { text: 'Hello', stallAfterChunks: 2 } }], {
        limits: { chunkTimeout: 200 },
        info: { attempt: 3, retryPolicy: { maximumAttempts: 3 } },
      }),
    );
    expect(failure.message).toMatch(/; gave up after 3 attempts$/);
  });

  it('takes its limits from the environment when the provider sets none, and names the variable', async () => {
    const failure = await failureOf(
      callModel([{ reply: { text: 'Hello', stallAfterChunks: 2 } }], { env: { LOOM_MODEL_IDLE_TIMEOUT_MS: '250' } }),
    );
    expect(failure.message).toContain('sent nothing for 0.3 s mid-answer');
    expect(failure.message).toContain('limit: LOOM_MODEL_IDLE_TIMEOUT_MS');
  });

  it('refuses a malformed limit in the environment, naming the variable', async () => {
    const failure = await failureOf(
      callModel([{ reply: { text: 'Hello' } }], { env: { LOOM_MODEL_FIRST_BYTE_TIMEOUT_MS: '5m' } }),
    );
    expect(failure.type).toBe(ModelFailure.config);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('LOOM_MODEL_FIRST_BYTE_TIMEOUT_MS="5m"');
  });

  it('ends as cancelled when the activity is cancelled during a silence, and as idle when it is not', async () => {
    const limits = { chunkTimeout: 1_000 };
    const activity = new MockActivityEnvironment();
    const cancelled = callModel([{ reply: { text: 'Hello', stallAfterChunks: 2 } }], { activity, limits });
    await server.waitForRequest(() => true);
    setTimeout(() => activity.cancel(), 200);
    await expect(cancelled).rejects.toBeInstanceOf(CancelledFailure);
    expect((await failureOf(callModel([{ reply: { text: 'Hello', stallAfterChunks: 2 } }], { limits }))).type).toBe(
      ModelFailure.streamIdle,
    );
  });
});

describe('stream limits', () => {
  it('default to 60 s between bytes and 300 s before the first', () => {
    const limits = streamLimits('openai', undefined, {});
    expect(limits.idle).toEqual({ ms: DEFAULT_IDLE_MS, source: 'provider.openai.options.chunkTimeout (default)' });
    expect(limits.firstByte.ms).toBe(DEFAULT_FIRST_BYTE_MS);
    expect([DEFAULT_IDLE_MS, DEFAULT_FIRST_BYTE_MS]).toEqual([60_000, 300_000]);
  });

  it('prefer the provider option to the environment, and turn off with false or 0', () => {
    const env = { LOOM_MODEL_IDLE_TIMEOUT_MS: '5000', LOOM_MODEL_FIRST_BYTE_TIMEOUT_MS: '0' };
    const limits = streamLimits('local', { chunkTimeout: false }, env);
    expect(limits.idle.ms).toBeUndefined();
    expect(limits.firstByte).toEqual({ ms: undefined, source: 'LOOM_MODEL_FIRST_BYTE_TIMEOUT_MS' });
    expect(streamLimits('local', {}, env).idle).toEqual({ ms: 5000, source: 'LOOM_MODEL_IDLE_TIMEOUT_MS' });
  });

  it('are checked when the config is read, naming the file and key', () => {
    const text = JSON.stringify({ provider: { local: { options: { chunkTimeout: '60s' } } } });
    expect(() => parseConfig(text, '/p/loom.json', {})).toThrow(
      /\/p\/loom\.json: invalid configuration\n {2}provider\.local\.options\.chunkTimeout/,
    );
  });
});
