// Wire-format helpers for the scripted OpenAI chat-completions server
// (see scripted-model.ts): turning requests into RecordedRequests, matching
// rules, and building the JSON bodies / SSE chunks that OpenAI would send.
import type { Matcher, RecordedRequest, ScriptedReply } from './scripted-model.js';

/** Text of a message `content`: a string, or an array of `{type:'text', text}` parts. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (p && typeof p === 'object' && typeof p.text === 'string' ? p.text : ''))
    .join('');
}

export function toRecordedRequest(
  index: number,
  path: string,
  headers: RecordedRequest['headers'],
  body: any,
  raw = '',
): RecordedRequest {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages[messages.length - 1];
  const lastUserMsg = [...messages].reverse().find((m) => m?.role === 'user');
  return {
    index,
    path,
    headers,
    body,
    raw,
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
    toolNames: Array.isArray(body?.tools)
      ? body.tools.map((t: any) => t?.function?.name).filter((n: unknown) => typeof n === 'string')
      : [],
  };
}

function textMatches(pattern: string | RegExp, text: string): boolean {
  if (typeof pattern === 'string') return text.includes(pattern);
  pattern.lastIndex = 0; // tolerate /g and /y regexps
  return pattern.test(text);
}

/** True when every field given in `m` matches the request. */
export function matches(m: Matcher | undefined, r: RecordedRequest): boolean {
  if (!m) return true;
  if (m.system !== undefined && !textMatches(m.system, r.system)) return false;
  if (m.lastUser !== undefined && !textMatches(m.lastUser, r.lastUser)) return false;
  if (m.lastTool !== undefined && (r.lastRole !== 'tool' || !textMatches(m.lastTool, r.lastTool))) return false;
  if (m.lastRole !== undefined && r.lastRole !== m.lastRole) return false;
  if (m.anyMessage !== undefined && !r.messages.some((msg) => textMatches(m.anyMessage!, textOf(msg?.content)))) {
    return false;
  }
  if (m.toolOffered !== undefined && !r.toolNames.includes(m.toolOffered)) return false;
  if (m.model !== undefined && r.model !== m.model) return false;
  if (m.test !== undefined && !m.test(r)) return false;
  return true;
}

/** Why nothing answered, in a form that reads well in a failing test. */
export function describeNoMatch(r: RecordedRequest, ruleNames: string[]): string {
  const last = r.messages[r.messages.length - 1];
  const content = textOf(last?.content).replace(/\s+/g, ' ');
  const snippet = content.length > 200 ? `${content.slice(0, 200)}…` : content;
  return (
    `No scripted reply matched request #${r.index} ` +
    `(last message role '${r.lastRole || 'none'}': ${JSON.stringify(snippet)}; ` +
    `tools offered: [${r.toolNames.join(', ')}]; rules still available: [${ruleNames.join(', ')}])`
  );
}

const ERROR_KINDS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Bad request.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  403: { type: 'permission_error', code: null, message: 'You are not allowed to use this model.' },
  404: { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached. Please try again later.' },
};

/** OpenAI-style error body: `{error:{message,type,param,code}}`. */
export function errorBody(status: number, message?: string): object {
  const kind = ERROR_KINDS[status] ?? { type: 'server_error', code: null, message: 'The server had an error.' };
  return { error: { message: message ?? kind.message, type: kind.type, param: null, code: kind.code } };
}

export interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** `usage` as OpenAI reports it; defaults to a chars/4 estimate. */
export function usageFor(reply: ScriptedReply, r: RecordedRequest, calls: WireToolCall[]): object {
  const reasoningTokens = estimateTokens(reply.reasoning ?? '');
  const prompt = reply.usage?.prompt_tokens ?? estimateTokens(JSON.stringify(r.messages));
  const completion =
    reply.usage?.completion_tokens ??
    reasoningTokens + estimateTokens((reply.text ?? '') + calls.map((c) => c.name + c.arguments).join(''));
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(reply.reasoning ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {}),
  };
}

export function finishReasonFor(reply: ScriptedReply): string {
  return reply.finish ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
}

/** The non-streaming `chat.completion` body. */
export function completionBody(
  id: string,
  model: string,
  reply: ScriptedReply,
  r: RecordedRequest,
  calls: WireToolCall[],
): object {
  return {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          refusal: null,
          ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
          ...(calls.length
            ? {
                tool_calls: calls.map((c) => ({
                  id: c.id,
                  type: 'function',
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: finishReasonFor(reply),
      },
    ],
    usage: usageFor(reply, r, calls),
  };
}

/** Split into pieces of `size` code points (never splits a surrogate pair). */
export function pieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += Math.max(1, size)) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/** The `chat.completion.chunk` objects of a streamed answer, in order (without `[DONE]`). */
export function streamChunks(
  id: string,
  model: string,
  reply: ScriptedReply,
  r: RecordedRequest,
  calls: WireToolCall[],
): object[] {
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
  out.push(chunk({}, finishReasonFor(reply)));
  if (r.body?.stream_options?.include_usage === true) {
    out.push({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageFor(reply, r, calls) });
  }
  return out;
}
