import { Context } from '@temporalio/activity';
import { streamText, type LanguageModel, type LanguageModelUsage, type ModelMessage, type ToolSet } from 'ai';
import { addTokens, zeroTokens, type AssistantMessage, type Tokens } from '../../core/message.js';
import type { ToolCall } from '../../core/tool-call.js';
import type { SessionStore } from '../store/store.js';
import { AnswerWriter } from './answer-writer.js';
import { classifyModelError, emptyAnswerFailure, noteRetry } from './errors.js';

const HEARTBEAT_EVERY_MS = 1_000;

export interface ModelRequest {
  model: LanguageModel;
  system: string;
  messages: ModelMessage[];
  tools?: ToolSet;
  temperature?: number;
  topP?: number;
  topK?: number;
  providerOptions?: Record<string, Record<string, never>>;
}

export interface StreamedAnswer {
  finish: string;
  toolCalls: ToolCall[];
  tokens: Tokens;
  /** All text of the answer. */
  text: string;
}

/** Requests per attempt of the activity before an empty answer fails it (OpenCode's proposed fix asks twice more). */
export const EMPTY_ANSWER_REQUESTS = 3;

/**
 * Streams one model answer into an assistant message, inside a model activity: heartbeats while
 * it runs, passes the activity's cancellation to the request, writes the parts as they arrive, and
 * records finish and usage. Each attempt starts the message afresh, so a retry never duplicates.
 * `prepare` builds the request once the message exists (a bad configuration fails with the message
 * recorded); errors come out classified for Temporal's retry policy.
 *
 * An answer with no text, reasoning or tool call is asked for again, up to `EMPTY_ANSWER_REQUESTS`
 * times, then fails for good (`ModelEmptyResponse`): never a silent "done". This happens here, not
 * through the retry policy, because an empty answer is a whole, well-formed reply that arrived at
 * once: the policy's backoff and its budget are for outages, and only here is the count known, so
 * the error can say it.
 */
export async function streamIntoMessage(
  store: SessionStore,
  message: AssistantMessage,
  prepare: () => Promise<ModelRequest>,
): Promise<StreamedAnswer> {
  const context = Context.current();
  const heartbeat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    await store.deleteParts(message.id);
    await store.saveMessage(message);
    const request = await prepare();
    let tokens = zeroTokens();
    for (let requests = 1; ; requests++) {
      if (requests > 1) await store.deleteParts(message.id);
      const writer = new AnswerWriter(store, { sessionID: message.sessionID, messageID: message.id });
      const answer = await streamOnce(request, writer, context.cancellationSignal);
      tokens = addTokens(tokens, answer.tokens);
      const finished = { ...message, finish: answer.finish, tokens };
      if (writer.hasContent()) {
        await store.saveMessage({ ...finished, time: { ...message.time, completed: Date.now() } });
        return { ...answer, tokens };
      }
      if (requests >= EMPTY_ANSWER_REQUESTS) {
        await store.saveMessage(finished);
        throw emptyAnswerFailure(message.model, requests, answer.finish, message.summary ? 'summary' : 'answer');
      }
    }
  } catch (error) {
    if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
    const { attempt, retryPolicy } = context.info;
    throw noteRetry(classifyModelError(error, message.model), attempt, retryPolicy?.maximumAttempts);
  } finally {
    clearInterval(heartbeat);
  }
}

/** One request: its answer streamed through `writer`; what arrived is written even if it breaks off. */
async function streamOnce(request: ModelRequest, writer: AnswerWriter, abortSignal: AbortSignal): Promise<StreamedAnswer> {
  try {
    const stream = streamText({ ...request, maxRetries: 0, abortSignal, onError: () => undefined });
    const toolCalls: ToolCall[] = [];
    let finish = 'unknown';
    let usage: LanguageModelUsage | undefined;
    for await (const chunk of stream.fullStream) {
      switch (chunk.type) {
        case 'text-delta':
          writer.text(chunk.id, chunk.text);
          break;
        case 'text-end':
          writer.end('text', chunk.id);
          break;
        case 'reasoning-delta':
          writer.reasoning(chunk.id, chunk.text);
          break;
        case 'reasoning-end':
          writer.end('reasoning', chunk.id);
          break;
        case 'tool-input-start':
          writer.toolInput(chunk.id, chunk.toolName, '');
          break;
        case 'tool-input-delta':
          writer.toolInput(chunk.id, '', chunk.delta);
          break;
        case 'tool-call': {
          const raw = typeof chunk.input === 'string' ? chunk.input : JSON.stringify(chunk.input ?? {});
          const part = writer.toolCall(chunk.toolCallId, chunk.toolName, chunk.input, raw);
          toolCalls.push({ partId: part.id, callId: chunk.toolCallId, tool: chunk.toolName, input: chunk.input });
          break;
        }
        case 'finish':
          finish = chunk.finishReason;
          usage = chunk.totalUsage;
          break;
        case 'error':
          throw chunk.error;
        case 'abort':
          throw abortSignal.reason ?? new Error('Model call aborted');
      }
    }
    await writer.flush();
    return { finish, toolCalls, tokens: toTokens(usage), text: writer.textOf() };
  } catch (error) {
    await writer.flush().catch(() => undefined);
    throw error;
  }
}

export function toTokens(usage: LanguageModelUsage | undefined): Tokens {
  const cacheRead = usage?.inputTokenDetails?.cacheReadTokens ?? 0;
  return {
    input: (usage?.inputTokens ?? 0) - cacheRead,
    output: usage?.outputTokens ?? 0,
    reasoning: usage?.outputTokenDetails?.reasoningTokens ?? 0,
    cache: { read: cacheRead, write: usage?.inputTokenDetails?.cacheWriteTokens ?? 0 },
  };
}
