// Gemini (`POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`)
// for the scripted model server: reading requests into RecordedRequest fields, and answering
// with GenerateContentResponse bodies, as JSON or as `data:` SSE lines.
import {
  parsedArguments,
  pieces,
  sseFrame,
  stringsOf,
  tokenCounts,
  type Answer,
  type NormalizedRequest,
  type RouteInfo,
  type WireProtocol,
} from './scripted-model-protocol.js';

const ERROR_STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

function errorBody(status: number, message?: string): object {
  const name = ERROR_STATUSES[status] ?? (status >= 500 ? 'INTERNAL' : 'UNKNOWN');
  return { error: { code: status, message: message ?? name.toLowerCase().replace(/_/g, ' '), status: name } };
}

const partsOf = (content: any): any[] => (Array.isArray(content?.parts) ? content.parts : []);

/** The spoken text of a content: its text parts, thoughts left out. */
const plainText = (content: any) =>
  stringsOf(
    partsOf(content)
      .filter((p) => p?.thought !== true)
      .map((p) => p?.text),
  ).join('');

/** A function's result as text: its `content` or `output` when they are text, else the JSON. */
function functionResponseText(part: any): string {
  const response = part?.functionResponse?.response;
  const text = response?.content ?? response?.output;
  return typeof text === 'string' ? text : JSON.stringify(response ?? null);
}

const functionResponsesOf = (content: any) => partsOf(content).filter((p) => p?.functionResponse);

const carriesToolResults = (content: any) => content?.role !== 'model' && functionResponsesOf(content).length > 0;

/** A user content that is more than function responses: what the user actually said. */
const isUserPrompt = (content: any) => content?.role !== 'model' && partsOf(content).some((p) => !p?.functionResponse);

function messageText(content: any): string {
  return partsOf(content)
    .map((p) => (p?.functionResponse ? functionResponseText(p) : typeof p?.text === 'string' ? p.text : ''))
    .join('');
}

function normalize(body: any, route: RouteInfo): NormalizedRequest {
  const contents: any[] = Array.isArray(body?.contents) ? body.contents : [];
  const last = contents[contents.length - 1];
  const lastRole = carriesToolResults(last) ? 'tool' : last?.role === 'model' ? 'assistant' : last ? 'user' : '';
  const declarations = Array.isArray(body?.tools) ? body.tools.flatMap((t: any) => t?.functionDeclarations ?? []) : [];
  return {
    model: route.model ?? '',
    stream: route.stream ?? false,
    messages: contents,
    system: stringsOf(partsOf(body?.systemInstruction).map((p) => p?.text)).join('\n'),
    lastUser: plainText(contents.findLast(isUserPrompt)),
    lastTool: lastRole === 'tool' ? functionResponsesOf(last).map(functionResponseText).join('\n') : '',
    lastRole,
    toolNames: stringsOf(declarations.map((d: any) => d?.name)),
  };
}

function finishReason({ reply }: Answer): string {
  if (reply.finish === 'length') return 'MAX_TOKENS';
  return reply.finish === 'content_filter' ? 'SAFETY' : 'STOP';
}

/** candidatesTokenCount leaves the thoughts out: the SDK adds thoughtsTokenCount back. */
function usageMetadata(answer: Answer): object {
  const t = tokenCounts(answer);
  const thoughts = answer.reply.reasoning ? t.reasoning : 0;
  return {
    promptTokenCount: t.prompt,
    candidatesTokenCount: t.completion - thoughts,
    totalTokenCount: t.prompt + t.completion,
    ...(t.cacheRead ? { cachedContentTokenCount: t.cacheRead } : {}),
    ...(answer.reply.reasoning ? { thoughtsTokenCount: thoughts } : {}),
  };
}

/**
 * The answer's parts, text split into pieces of `size` (Infinity: whole). The reasoning's
 * thoughtSignature goes on the first function call, else on the last text part.
 */
function answerParts(answer: Answer, size: number): any[] {
  const { reply, calls } = answer;
  const split = (text: string) => (size === Infinity ? [text] : pieces(text, size));
  const thoughts = reply.reasoning ? split(reply.reasoning).map((text) => ({ text, thought: true })) : [];
  const texts: any[] = reply.text ? split(reply.text).map((text) => ({ text })) : [];
  const functionCalls: any[] = calls.map((c) => ({
    functionCall: { ...(c.id !== undefined ? { id: c.id } : {}), name: c.name, args: parsedArguments(c) },
  }));
  const signed = functionCalls[0] ?? texts.at(-1);
  if (reply.reasoning && signed) signed.thoughtSignature = `sig_${answer.n}`;
  return [...thoughts, ...texts, ...functionCalls];
}

function responseBody(answer: Answer, parts: any[], last: boolean): object {
  return {
    candidates: [
      { content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: finishReason(answer) } : {}) },
    ],
    ...(last ? { usageMetadata: usageMetadata(answer) } : {}),
    modelVersion: answer.model,
    responseId: `scripted${answer.n}`,
  };
}

/** One part a chunk; the last chunk carries finishReason and usage. */
function streamChunks(answer: Answer): string[] {
  const parts = answerParts(answer, answer.reply.chunkSize ?? 16);
  if (parts.length === 0) return [sseFrame(responseBody(answer, [], true))];
  return parts.map((part, i) => sseFrame(responseBody(answer, [part], i === parts.length - 1)));
}

export const geminiProtocol: WireProtocol = {
  name: 'gemini',
  toolCallIdPrefix: null,
  normalize,
  messageText,
  hasApiKey: (headers, query, apiKey) => headers['x-goog-api-key'] === apiKey || query.get('key') === apiKey,
  errorBody,
  jsonBody: (answer) => responseBody(answer, answerParts(answer, Infinity), true),
  sseFrames: streamChunks,
  sseEnd: '',
};

/** `/v1beta/models/{model}:generateContent` or `:streamGenerateContent`; undefined for other paths. */
export function geminiRoute(path: string): { model: string; stream: boolean } | undefined {
  const m = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
  return m ? { model: decodeURIComponent(m[1]), stream: m[2] === 'streamGenerateContent' } : undefined;
}
