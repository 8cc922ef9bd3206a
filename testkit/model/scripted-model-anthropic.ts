// Anthropic Messages (`POST /v1/messages`) for the scripted model server: reading requests
// into RecordedRequest fields, and answering as JSON or as Anthropic's named SSE events.
import {
  parsedArguments,
  pieces,
  sseFrame,
  stringsOf,
  textOf,
  tokenCounts,
  type Answer,
  type NormalizedRequest,
  type WireProtocol,
} from './scripted-model-protocol.js';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function errorBody(status: number, message?: string): object {
  const type = ERROR_TYPES[status] ?? 'api_error';
  return { type: 'error', error: { type, message: message ?? type.replace(/_/g, ' ') } };
}

const blocksOf = (message: any): any[] => (Array.isArray(message?.content) ? message.content : []);

/** A tool_result's content: a string or an array of text blocks. */
const toolResultText = (block: any) => textOf(block?.content);

/** The text blocks of a message (tool results left out). */
const plainText = (message: any) =>
  typeof message?.content === 'string' ? message.content : textOf(blocksOf(message).filter((b) => b?.type === 'text'));

const toolResultsOf = (message: any) => blocksOf(message).filter((b) => b?.type === 'tool_result');

const carriesToolResults = (message: any) => message?.role === 'user' && toolResultsOf(message).length > 0;

/** A user message that is more than tool results: what the user actually said. */
const isUserPrompt = (message: any) =>
  message?.role === 'user' &&
  (typeof message.content === 'string' || blocksOf(message).some((b) => b?.type !== 'tool_result'));

/** `system`: a string or an array of text blocks. */
const systemText = (system: unknown) =>
  typeof system === 'string' ? system : Array.isArray(system) ? stringsOf(system.map((b) => b?.text)).join('\n') : '';

function messageText(message: any): string {
  if (typeof message?.content === 'string') return message.content;
  return blocksOf(message)
    .map((b) => (b?.type === 'tool_result' ? toolResultText(b) : typeof b?.text === 'string' ? b.text : ''))
    .join('');
}

function normalize(body: any): NormalizedRequest {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages[messages.length - 1];
  const lastRole = carriesToolResults(last) ? 'tool' : last?.role === 'assistant' ? 'assistant' : last ? 'user' : '';
  return {
    model: typeof body?.model === 'string' ? body.model : '',
    stream: body?.stream === true,
    messages,
    system: systemText(body?.system),
    lastUser: plainText(messages.findLast(isUserPrompt)),
    lastTool: lastRole === 'tool' ? toolResultsOf(last).map(toolResultText).join('\n') : '',
    lastRole,
    toolNames: Array.isArray(body?.tools) ? stringsOf(body.tools.map((t: any) => t?.name)) : [],
  };
}

function stopReason({ reply, calls }: Answer): string {
  if (reply.finish === 'length') return 'max_tokens';
  if (reply.finish === 'content_filter') return 'refusal';
  return reply.finish === 'tool_calls' || (reply.finish === undefined && calls.length) ? 'tool_use' : 'end_turn';
}

/** Input tokens leave out the cached ones, so the SDK's total (input + cache) is the scripted prompt. */
function usage(answer: Answer) {
  const t = tokenCounts(answer);
  return {
    input_tokens: Math.max(0, t.prompt - t.cacheRead - t.cacheWrite),
    output_tokens: t.completion,
    cache_read_input_tokens: t.cacheRead,
    cache_creation_input_tokens: t.cacheWrite,
  };
}

const signature = (answer: Answer) => `sig_${answer.n}`;

function contentBlocks(answer: Answer): object[] {
  const { reply, calls } = answer;
  return [
    ...(reply.reasoning ? [{ type: 'thinking', thinking: reply.reasoning, signature: signature(answer) }] : []),
    ...(reply.text ? [{ type: 'text', text: reply.text }] : []),
    ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: parsedArguments(c) })),
  ];
}

function messageBody(answer: Answer): object {
  return {
    id: `msg_scripted${answer.n}`,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content: contentBlocks(answer),
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: usage(answer),
  };
}

/** One content block as start, deltas and stop events. */
function blockEvents(index: number, start: object, deltas: object[]): string[] {
  return [
    sseFrame({ type: 'content_block_start', index, content_block: start }, 'content_block_start'),
    ...deltas.map((delta) => sseFrame({ type: 'content_block_delta', index, delta }, 'content_block_delta')),
    sseFrame({ type: 'content_block_stop', index }, 'content_block_stop'),
  ];
}

function streamEvents(answer: Answer): string[] {
  const { reply, calls } = answer;
  const size = reply.chunkSize ?? 16;
  const { output_tokens, ...inputUsage } = usage(answer);
  const blocks: [object, object[]][] = [];
  if (reply.reasoning) {
    const thinking = pieces(reply.reasoning, size).map((p) => ({ type: 'thinking_delta', thinking: p }));
    const signed = { type: 'signature_delta', signature: signature(answer) };
    blocks.push([{ type: 'thinking', thinking: '' }, [...thinking, signed]]);
  }
  if (reply.text) {
    blocks.push([{ type: 'text', text: '' }, pieces(reply.text, size).map((p) => ({ type: 'text_delta', text: p }))]);
  }
  for (const c of calls) {
    const json = pieces(c.arguments, size).map((p) => ({ type: 'input_json_delta', partial_json: p }));
    blocks.push([{ type: 'tool_use', id: c.id, name: c.name, input: {} }, json]);
  }
  const message = {
    ...messageBody(answer),
    content: [],
    stop_reason: null,
    usage: { ...inputUsage, output_tokens: 1 },
  };
  return [
    sseFrame({ type: 'message_start', message }, 'message_start'),
    ...blocks.flatMap(([start, deltas], index) => blockEvents(index, start, deltas)),
    sseFrame(
      {
        type: 'message_delta',
        delta: { stop_reason: stopReason(answer), stop_sequence: null },
        usage: { output_tokens },
      },
      'message_delta',
    ),
    sseFrame({ type: 'message_stop' }, 'message_stop'),
  ];
}

export const anthropicProtocol: WireProtocol = {
  name: 'anthropic',
  toolCallIdPrefix: 'toolu_',
  normalize,
  messageText,
  hasApiKey: (headers, _query, apiKey) => headers['x-api-key'] === apiKey,
  errorBody,
  jsonBody: messageBody,
  sseFrames: streamEvents,
  sseEnd: '',
};
