// What every wire protocol of the scripted model server (see scripted-model.ts) shares: the
// WireProtocol contract, rule matching on the normalized request, token counting, SSE framing;
// and OpenAI's `POST /v1/chat/completions` itself. Anthropic and Gemini live in
// scripted-model-anthropic.ts and scripted-model-gemini.ts.
import type { IncomingHttpHeaders } from 'node:http';
import type { Matcher, RecordedRequest, ScriptedReply } from './scripted-model-script.js';

/** The RecordedRequest fields a protocol reads from its own request body. */
export type NormalizedRequest = Pick<
  RecordedRequest,
  'model' | 'stream' | 'messages' | 'system' | 'lastUser' | 'lastTool' | 'lastRole' | 'toolNames'
>;

/** What the URL says about the request (Gemini puts the model and streaming there). */
export interface RouteInfo {
  model?: string;
  stream?: boolean;
}

export interface WireToolCall {
  /** Unset only where the protocol has no call ids of its own (Gemini) and the script gave none. */
  id?: string;
  name: string;
  /** The arguments as JSON text (invalid JSON when the script says so). */
  arguments: string;
}

/** One scripted answer, ready to be written in some protocol's shape. */
export interface Answer {
  /** Counts the server's answers; makes response ids and signatures unique. */
  n: number;
  model: string;
  reply: ScriptedReply;
  request: RecordedRequest;
  calls: WireToolCall[];
}

export interface WireProtocol {
  name: RecordedRequest['protocol'];
  /** Prefix of the tool-call ids the server makes up; null: calls have no id unless scripted. */
  toolCallIdPrefix: string | null;
  normalize(body: any, route: RouteInfo): NormalizedRequest;
  /** All the text of one message in this protocol's shape (for the `anyMessage` matcher). */
  messageText(message: any): string;
  hasApiKey(headers: IncomingHttpHeaders, query: URLSearchParams, apiKey: string): boolean;
  errorBody(status: number, message?: string): object;
  jsonBody(answer: Answer): object;
  /** The SSE frames of a streamed answer, each ending in a blank line. */
  sseFrames(answer: Answer): string[];
  /** Written after the last frame (OpenAI's `data: [DONE]`); also all an `emptyStream` sends. */
  sseEnd: string;
}

/** Text of a message `content`: a string, or an array of `{type:'text', text}` parts. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (p && typeof p === 'object' && typeof p.text === 'string' ? p.text : '')).join('');
}

export function stringsOf(values: unknown[]): string[] {
  return values.filter((v): v is string => typeof v === 'string');
}

function textMatches(pattern: string | RegExp, text: string): boolean {
  if (typeof pattern === 'string') return text.includes(pattern);
  pattern.lastIndex = 0; // tolerate /g and /y regexps
  return pattern.test(text);
}

/** True when every field given in `m` matches the request. */
export function matches(m: Matcher | undefined, r: RecordedRequest, messageText: (message: any) => string): boolean {
  if (!m) return true;
  if (m.system !== undefined && !textMatches(m.system, r.system)) return false;
  if (m.lastUser !== undefined && !textMatches(m.lastUser, r.lastUser)) return false;
  if (m.lastTool !== undefined && (r.lastRole !== 'tool' || !textMatches(m.lastTool, r.lastTool))) return false;
  if (m.lastRole !== undefined && r.lastRole !== m.lastRole) return false;
  if (m.anyMessage !== undefined && !r.messages.some((msg) => textMatches(m.anyMessage!, messageText(msg)))) {
    return false;
  }
  if (m.toolOffered !== undefined && !r.toolNames.includes(m.toolOffered)) return false;
  if (m.model !== undefined && r.model !== m.model) return false;
  if (m.test !== undefined && !m.test(r)) return false;
  return true;
}

/** Why nothing answered, in a form that reads well in a failing test. */
export function describeNoMatch(
  r: RecordedRequest,
  ruleNames: string[],
  messageText: (message: any) => string,
): string {
  const content = messageText(r.messages[r.messages.length - 1]).replace(/\s+/g, ' ');
  const snippet = content.length > 200 ? `${content.slice(0, 200)}…` : content;
  return (
    `No scripted reply matched request #${r.index} ` +
    `(last message role '${r.lastRole || 'none'}': ${JSON.stringify(snippet)}; ` +
    `tools offered: [${r.toolNames.join(', ')}]; rules still available: [${ruleNames.join(', ')}])`
  );
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export interface TokenCounts {
  /** The whole prompt, cached parts included. */
  prompt: number;
  completion: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
}

/** The scripted usage; what is not scripted is estimated at chars/4. */
export function tokenCounts({ reply, request, calls }: Pick<Answer, 'reply' | 'request' | 'calls'>): TokenCounts {
  const reasoning = estimateTokens(reply.reasoning ?? '');
  const completion =
    reply.usage?.completion_tokens ??
    reasoning + estimateTokens((reply.text ?? '') + calls.map((c) => c.name + c.arguments).join(''));
  return {
    prompt: reply.usage?.prompt_tokens ?? estimateTokens(JSON.stringify(request.messages)),
    completion,
    reasoning: Math.min(reasoning, completion),
    cacheRead: reply.usage?.cache_read_tokens ?? 0,
    cacheWrite: reply.usage?.cache_write_tokens ?? 0,
  };
}

/** Split into pieces of `size` code points (never splits a surrogate pair). */
export function pieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += Math.max(1, size)) out.push(chars.slice(i, i + size).join(''));
  return out;
}

export function sseFrame(data: object, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}

/** The arguments as a value (for protocols that send objects); invalid JSON stays a string. */
export function parsedArguments(call: WireToolCall): unknown {
  try {
    return JSON.parse(call.arguments);
  } catch {
    return call.arguments;
  }
}

// ---- OpenAI chat completions ----

const OPENAI_ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Bad request.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  403: { type: 'permission_error', code: null, message: 'You are not allowed to use this model.' },
  404: { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached. Please try again later.' },
};

/** OpenAI-style error body: `{error:{message,type,param,code}}`. */
export function errorBody(status: number, message?: string): object {
  const kind = OPENAI_ERRORS[status] ?? { type: 'server_error', code: null, message: 'The server had an error.' };
  return { error: { message: message ?? kind.message, type: kind.type, param: null, code: kind.code } };
}

function normalizeOpenAI(body: any): NormalizedRequest {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages[messages.length - 1];
  const lastUserMsg = [...messages].reverse().find((m) => m?.role === 'user');
  return {
    model: typeof body?.model === 'string' ? body.model : '',
    stream: body?.stream === true,
    messages,
    system: messages
      .filter((m) => m?.role === 'system' || m?.role === 'developer')
      .map((m) => textOf(m.content))
      .join('\n'),
    lastUser: lastUserMsg ? textOf(lastUserMsg.content) : '',
    lastTool: last?.role === 'tool' ? textOf(last.content) : '',
    lastRole: typeof last?.role === 'string' ? last.role : '',
    toolNames: Array.isArray(body?.tools) ? stringsOf(body.tools.map((t: any) => t?.function?.name)) : [],
  };
}

/** `usage` as OpenAI reports it. */
function openAIUsage(answer: Answer): object {
  const t = tokenCounts(answer);
  return {
    prompt_tokens: t.prompt,
    completion_tokens: t.completion,
    total_tokens: t.prompt + t.completion,
    ...(answer.reply.usage?.cache_read_tokens !== undefined
      ? { prompt_tokens_details: { cached_tokens: t.cacheRead } }
      : {}),
    ...(answer.reply.reasoning ? { completion_tokens_details: { reasoning_tokens: t.reasoning } } : {}),
  };
}

function openAIFinishReason(reply: ScriptedReply): string {
  return reply.finish ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
}

const responseId = (answer: Answer) => `chatcmpl-scripted${answer.n}`;

/** The non-streaming `chat.completion` body. */
function completionBody(answer: Answer): object {
  const { reply, calls } = answer;
  const toolCalls = calls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
  return {
    id: responseId(answer),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: answer.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          refusal: null,
          ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: openAIFinishReason(reply),
      },
    ],
    usage: openAIUsage(answer),
  };
}

/** The `chat.completion.chunk` objects of a streamed answer, in order (without `[DONE]`). */
function completionChunks(answer: Answer): object[] {
  const { reply, calls, model } = answer;
  const id = responseId(answer);
  const created = Math.floor(Date.now() / 1000);
  const size = reply.chunkSize ?? 16;
  const chunk = (delta: object, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const out: object[] = [chunk({ role: 'assistant', content: reply.text ? '' : null, refusal: null })];
  for (const p of pieces(reply.reasoning ?? '', size)) out.push(chunk({ reasoning_content: p }));
  for (const p of pieces(reply.text ?? '', size)) out.push(chunk({ content: p }));
  calls.forEach((c, index) => {
    out.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
    for (const p of pieces(c.arguments, size)) out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  out.push(chunk({}, openAIFinishReason(reply)));
  if (answer.request.body?.stream_options?.include_usage === true) {
    out.push({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: openAIUsage(answer) });
  }
  return out;
}

export const openAIProtocol: WireProtocol = {
  name: 'openai',
  toolCallIdPrefix: 'call_',
  normalize: normalizeOpenAI,
  messageText: (message) => textOf(message?.content),
  hasApiKey: (headers, _query, apiKey) => headers.authorization === `Bearer ${apiKey}`,
  errorBody,
  jsonBody: completionBody,
  sseFrames: (answer) => completionChunks(answer).map((chunk) => sseFrame(chunk)),
  sseEnd: 'data: [DONE]\n\n',
};
