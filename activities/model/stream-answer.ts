import { Context } from '@temporalio/activity';
import { countModelCall } from '../telemetry/metrics.js';
import { inModelCallSpan } from '../telemetry/spans.js';
import {
  InvalidResponseDataError,
  type LanguageModelV3FunctionTool,
  type LanguageModelV3Prompt,
  type LanguageModelV3StreamPart,
  type LanguageModelV3Usage,
  type SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import { safeParseJSON } from '@ai-sdk/provider-utils';
import { NoOutputGeneratedError, type ModelMessage } from 'ai';
import { addTokens, zeroTokens, type AssistantMessage, type Tokens } from '../../core/records/message.js';
import { totalTokens } from '../../core/records/tokens.js';
import type { ToolCall } from '../../core/tool-call/check.js';
import type { PartRecords } from '../store/parts.js';
import type { MessageRecords } from '../store/messages.js';
import { AnswerWriter } from './answer-writer.js';
import { classifyModelError, emptyAnswerFailure, neverReachedFailure, noteRetry } from './errors.js';
import { SETUP_ATTEMPTS, setupProblem } from './failure-kinds.js';
import { toLanguageModelPrompt } from './language-model-prompt.js';
import { withCacheBreakpoints } from './prompt-caching.js';
import type { ResolvedModel } from './provider.js';
import { isEmptyCallMarkup, repairTextToolCalls } from './tool-call-repair.js';

const HEARTBEAT_EVERY_MS = 1_000;

export interface ModelRequest {
  model: ResolvedModel;
  system: string;
  messages: ModelMessage[];
  /** Offered without `execute`: the model's calls come back to the workflow, which runs them. */
  tools?: LanguageModelV3FunctionTool[];
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  providerOptions?: SharedV3ProviderOptions;
  /** Whether `input` is valid for the offered tool `name`: lets calls written as text become calls. */
  acceptsToolCall?: (name: string, input: Record<string, unknown>) => boolean;
  /** The answer's price from its tokens (0 when the model's cost is unknown). */
  costOf?: (tokens: Tokens) => number;
}

export interface StreamedAnswer {
  finish: string;
  toolCalls: ToolCall[];
  tokens: Tokens;
  /** All text of the answer. */
  text: string;
  /** Its price in dollars (0 when the model's cost is unknown). */
  cost?: number;
}

/** Asked once of a model that answered nothing after its tool calls. */
const NUDGE: LanguageModelV3Prompt[number] = {
  role: 'user',
  content: [
    {
      type: 'text',
      text: 'You answered nothing after the tool calls above. Reply with one line: what you did, and whether the task is done.',
    },
  ],
};
/** What the answer says when the nudge got nothing either: the turn ends, done, with this visible. */
export const NO_FINAL_ANSWER =
  '(The model gave no final answer after its tool calls; the turn ended here. Check the tool results above.)';

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
 * times, then fails for good (`ModelEmptyResponse`): never a silent "done". After tool results it
 * is asked once more with a nudge (say in one line what was done); silence then ends the turn as
 * done, with a note saying the model gave no final answer. This happens here, not
 * through the retry policy, because an empty answer is a whole, well-formed reply that arrived at
 * once: the policy's backoff and its budget are for outages, and only here is the count known, so
 * the error can say it.
 */
export async function streamIntoMessage(
  store: MessageRecords & PartRecords,
  message: AssistantMessage,
  prepare: () => Promise<ModelRequest>,
): Promise<StreamedAnswer> {
  const answer = await inModelCallSpan(
    { sessionId: message.sessionID, model: message.model, agent: message.agent, step: message.step },
    () => streamAnswer(store, message, prepare),
  );
  countModelCall({ model: message.model, agent: message.agent, tokens: answer.tokens, cost: answer.cost ?? 0 });
  return answer;
}

async function streamAnswer(
  store: MessageRecords & PartRecords,
  message: AssistantMessage,
  prepare: () => Promise<ModelRequest>,
): Promise<StreamedAnswer> {
  const context = Context.current();
  const heartbeat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    await store.deleteParts(message.id);
    await store.saveMessage(message);
    const request = await prepare();
    const prompt = withCacheBreakpoints(toLanguageModelPrompt(request.system, request.messages), request.model);
    let tokens = zeroTokens();
    const afterTools = prompt.at(-1)?.role === 'tool';
    for (let requests = 1; ; requests++) {
      if (requests > 1) await store.deleteParts(message.id);
      const writer = new AnswerWriter(store, { sessionID: message.sessionID, messageID: message.id });
      // A model that goes silent after its tools has usually finished: asking the same again gets the same silence.
      const nudged = afterTools && requests > 1 ? [...prompt, NUDGE] : prompt;
      const answer = await streamOnce(request, nudged, writer, context.cancellationSignal);
      await request.model.rateGates?.spend(totalTokens(answer.tokens));
      tokens = addTokens(tokens, answer.tokens);
      const finished = { ...message, finish: answer.finish, tokens, cost: request.costOf?.(tokens) ?? 0 };
      if (writer.hasContent()) {
        await store.saveMessage({ ...finished, time: { ...message.time, completed: Date.now() } });
        return { ...answer, tokens, cost: finished.cost };
      }
      if (afterTools && requests >= 2) {
        writer.note(NO_FINAL_ANSWER);
        await writer.flush();
        await store.saveMessage({ ...finished, finish: 'stop', time: { ...message.time, completed: Date.now() } });
        return { ...answer, finish: 'stop', toolCalls: [], text: NO_FINAL_ANSWER, tokens, cost: finished.cost };
      }
      if (requests >= EMPTY_ANSWER_REQUESTS) {
        await store.saveMessage(finished);
        throw emptyAnswerFailure(message.model, requests, answer.finish, message.summary ? 'summary' : 'answer');
      }
    }
  } catch (error) {
    if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
    const { attempt, retryPolicy } = context.info;
    const classified = classifyModelError(error, message.model);
    if (
      attempt >= SETUP_ATTEMPTS &&
      !classified.nonRetryable &&
      setupProblem(error) &&
      !(await store.lastFinishedStep(message.sessionID))
    ) {
      throw neverReachedFailure(classified, message.sessionID, attempt);
    }
    throw noteRetry(classified, attempt, retryPolicy?.maximumAttempts);
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * One request, straight to the provider's `doStream`, as `streamText` would make it (see
 * `toLanguageModelPrompt` for why not through it): its answer streamed through `writer`; what
 * arrived is written even if it breaks off.
 */
async function streamOnce(
  request: ModelRequest,
  prompt: LanguageModelV3Prompt,
  writer: AnswerWriter,
  abortSignal: AbortSignal,
): Promise<StreamedAnswer> {
  let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
  try {
    const tools = request.tools?.length ? request.tools : undefined;
    const { stream } = await request.model.model.doStream({
      prompt,
      tools,
      toolChoice: tools ? { type: 'auto' } : undefined,
      maxOutputTokens: request.maxOutputTokens,
      temperature: request.temperature,
      topP: request.topP,
      topK: request.topK,
      providerOptions: request.providerOptions,
      abortSignal,
      includeRawChunks: false,
    });
    reader = stream.getReader();
    const toolCalls: ToolCall[] = [];
    let finish: string | undefined;
    let usage: LanguageModelV3Usage | undefined;
    let endedEmpty = false;
    let output = false;
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      const part = read.value;
      switch (part.type) {
        case 'text-start':
          if (part.providerMetadata) writer.text(part.id, '', part.providerMetadata);
          break;
        case 'text-delta':
          output = true;
          if (part.delta.length > 0 || part.providerMetadata) writer.text(part.id, part.delta, part.providerMetadata);
          break;
        case 'text-end':
          writer.end('text', part.id, part.providerMetadata);
          break;
        case 'reasoning-start':
          // Anthropic's redacted thinking has no text, only its encrypted data.
          if (part.providerMetadata) writer.reasoning(part.id, '', part.providerMetadata);
          break;
        case 'reasoning-delta':
          output = true;
          writer.reasoning(part.id, part.delta, part.providerMetadata);
          break;
        case 'reasoning-end':
          writer.end('reasoning', part.id, part.providerMetadata);
          break;
        case 'tool-input-start':
          output = true;
          writer.toolInput(part.id, part.toolName, '');
          break;
        case 'tool-input-delta':
          writer.toolInput(part.id, '', part.delta);
          break;
        case 'tool-call': {
          output = true;
          const input = await toolInput(part.input);
          const call = writer.toolCall(
            part.toolCallId,
            part.toolName,
            input,
            typeof input === 'string' ? input : JSON.stringify(input),
            part.providerMetadata,
          );
          toolCalls.push({ partId: call.id, callId: part.toolCallId, tool: part.toolName, input });
          break;
        }
        case 'finish':
          finish = endedEmpty ? 'other' : part.finishReason.unified;
          usage = part.usage;
          break;
        case 'error':
          // The OpenAI-compatible package reports a stream that ends with nothing at all as an
          // error; it is an empty answer, asked for again like any other.
          if (!output && isEndWithoutFinish(part.error)) {
            endedEmpty = true;
            break;
          }
          throw part.error;
      }
    }
    if (finish === undefined && !output)
      throw new NoOutputGeneratedError({
        message: 'No output generated. The model stream ended without a finish chunk.',
      });
    if (toolCalls.length === 0 && request.model.toolCallRepair && request.acceptsToolCall) {
      const repaired = repairCalls(writer, request.acceptsToolCall);
      if (repaired.length > 0) {
        toolCalls.push(...repaired);
        finish = 'tool-calls';
      }
    }
    await writer.flush();
    return { finish: finish ?? 'other', toolCalls, tokens: toTokens(usage), text: writer.textOf() };
  } catch (error) {
    await reader?.cancel().catch(() => undefined);
    await writer.flush().catch(() => undefined);
    throw error;
  }
}

function isEndWithoutFinish(error: unknown): boolean {
  return InvalidResponseDataError.isInstance(error) && /ended without a finish reason/.test(error.message);
}

/** Tool calls the model wrote in its text, made real calls (see tool-call-repair.ts). */
function repairCalls(
  writer: AnswerWriter,
  accepts: (name: string, input: Record<string, unknown>) => boolean,
): ToolCall[] {
  const { calls, text } = repairTextToolCalls(writer.textOf(), accepts);
  // Wrappers with no call inside are an empty answer, asked for again as one.
  if (calls.length === 0 && isEmptyCallMarkup(text)) writer.textToToolCalls('', []);
  if (calls.length === 0) return [];
  const parts = writer.textToToolCalls(
    text,
    calls.map((call) => ({ tool: call.toolName, input: call.input, raw: JSON.stringify(call.input) })),
  );
  return parts.map((part, index) => ({
    partId: part.id,
    callId: part.callID,
    tool: part.tool,
    input: calls[index].input,
  }));
}

/**
 * A call's arguments as the AI SDK reads them: none is `{}`, JSON is parsed (safely), anything else stays the raw text.
 */
async function toolInput(raw: string): Promise<unknown> {
  if (raw.trim() === '') return {};
  const parsed = await safeParseJSON({ text: raw });
  return parsed.success ? parsed.value : raw;
}

export function toTokens(usage: LanguageModelV3Usage | undefined): Tokens {
  const cacheRead = usage?.inputTokens.cacheRead ?? 0;
  const cacheWrite = usage?.inputTokens.cacheWrite ?? 0;
  return {
    // Uncached input: the total counts cache reads and (Anthropic's) cache writes too.
    input: Math.max(0, (usage?.inputTokens.total ?? 0) - cacheRead - cacheWrite),
    output: usage?.outputTokens.total ?? 0,
    reasoning: usage?.outputTokens.reasoning ?? 0,
    cache: { read: cacheRead, write: cacheWrite },
  };
}
