// One model call of the model activity's streaming code, in a mock activity context, through the
// real provider (AI SDK and watched fetch) against the scripted server on a real port.
import type { Info } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { expect } from 'vitest';
import type { LoomConfig } from '../../core/config/config.js';
import { resolveModel } from '../../activities/model/provider.js';
import { streamIntoMessage, type StreamedAnswer } from '../../activities/model/stream-answer.js';
import type { PartRecords } from '../../activities/store/parts.js';
import type { MessageRecords } from '../../activities/store/messages.js';
import { newId } from '../../core/records/ids.js';
import { zeroTokens, type AssistantMessage } from '../../core/records/message.js';
import type { ScriptedModel } from './scripted-model.js';
import type { ScriptRule } from './scripted-model-script.js';
import type { ModelMessage } from 'ai';

export const MODEL = 'scripted/test-model';

/** An assistant message about to be streamed into. */
export function assistantMessage(sessionID: string): AssistantMessage {
  return {
    id: newId('msg', Date.now(), Math.random),
    sessionID,
    role: 'assistant',
    parentID: 'msg_user',
    agent: 'build',
    model: MODEL,
    step: 1,
    time: { created: 1 },
    tokens: zeroTokens(),
    cost: 0,
  };
}

export interface StreamOptions {
  limits?: { chunkTimeout?: number | false; firstChunkTimeout?: number | false };
  env?: NodeJS.ProcessEnv;
  info?: Partial<Info>;
  activity?: MockActivityEnvironment;
  /** The conversation so far (default: the user saying hello). */
  messages?: ModelMessage[];
}

/** Streams one answer from the scripted server into `message`, configured as a user would. */
export function streamFromScript(
  server: ScriptedModel,
  store: MessageRecords & PartRecords,
  message: AssistantMessage,
  rules: ScriptRule[],
  options: StreamOptions = {},
): Promise<StreamedAnswer> {
  server.setScript(rules);
  const config: LoomConfig = {
    provider: { scripted: { options: { baseURL: server.url, apiKey: 'test', ...options.limits } } },
  };
  const activity = options.activity ?? new MockActivityEnvironment(options.info);
  return activity.run(() =>
    streamIntoMessage(store, message, async () => ({
      model: await resolveModel(MODEL, config, options.env ?? {}),
      system: 'You are a test.',
      messages: options.messages ?? [{ role: 'user', content: 'Say hello' }],
    })),
  );
}

/** The `ApplicationFailure` a call fails with. */
export async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}
