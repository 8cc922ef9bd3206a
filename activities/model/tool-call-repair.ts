// Small local models (served by llama.cpp, Ollama, vLLM) often write a tool call into their answer
// instead of sending it as one. This reads the shapes they write back as calls (see
// test/fixtures/real-model-answers.jsonl): JSON anywhere in the answer, bare, fenced, or inside
// tags (`<tool_call>`, `<tools>`, one object a line), `{name, arguments}` or the arguments beside
// the name; Qwen's `<function=name>` markup and XML elements named for the tool. A call counts
// only when it names an offered tool with arguments that validate; everything else stays text.
import { embeddedJson } from './repair/embedded-json.js';
import { markupCalls } from './repair/markup-calls.js';

export interface RepairedCall {
  toolName: string;
  input: Record<string, unknown>;
  /** The text the call was read from. */
  source: string;
}

export type AcceptsToolCall = (name: string, input: Record<string, unknown>) => boolean;

interface Found {
  toolName: string;
  input: Record<string, unknown>;
  start: number;
  end: number;
}

/** Keys of a call object that are not its arguments, when the arguments stand beside the name. */
const CALL_KEYS = new Set(['name', 'tool', 'function', 'type', 'id']);
/** What models write around their calls that means nothing once the calls are taken out. */
const LEFTOVERS = [
  /<tool_response>[\s\S]*?<\/tool_response>/g,
  /<task_metadata>[\s\S]*?<\/task_metadata>/g,
  /<\/?(?:tools|tool_call|tool_response)>/g,
  /```[a-zA-Z]*\s*```/g,
  /^\s*```\s*$/gm,
];

/** The calls written in `text`, in order, and the text left once they are taken out. */
export function repairTextToolCalls(text: string, accepts: AcceptsToolCall): { calls: RepairedCall[]; text: string } {
  const acceptable = (call: Found) => accepts(call.toolName, call.input);
  const found = [
    ...jsonCalls(text).map(withoutNulls).filter(acceptable),
    // Markup is text: `<session_id>12345</session_id>` may be the string the tool wants, not a number.
    ...markupCalls(text).flatMap(
      ({ textInput, ...call }) => [call, { ...call, input: textInput }].map(withoutNulls).find(acceptable) ?? [],
    ),
  ].sort((a, b) => a.start - b.start);
  const calls: RepairedCall[] = [];
  const seen = new Set<string>();
  for (const call of found) {
    // The same call twice (as markup and again as JSON) runs once.
    const key = `${call.toolName}\0${JSON.stringify(call.input)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    calls.push({ toolName: call.toolName, input: call.input, source: text.slice(call.start, call.end) });
  }
  if (calls.length === 0) return { calls, text };
  return { calls, text: leftover(text, found) };
}

/** The calls in the JSON values of a text: a call, a list of calls, or `{tool_calls: […]}`. */
function jsonCalls(text: string): Found[] {
  return embeddedJson(text).flatMap(({ start, end, value }) => callsIn(value).map((call) => ({ ...call, start, end })));
}

function callsIn(value: unknown): { toolName: string; input: Record<string, unknown> }[] {
  if (Array.isArray(value)) return value.flatMap(callsIn);
  if (!isRecord(value)) return [];
  const list = value.tool_calls ?? value.calls ?? value.tools;
  if (Array.isArray(list)) return list.flatMap(callsIn);
  const call = asCall(value);
  return call ? [call] : [];
}

/**
 * `{name, arguments}` (or `parameters`, `args`, `input`), `{function: name, arguments}`, OpenAI's
 * `{function: {name, arguments: "<json>"}}`, or the arguments beside the name (`{name, prompt, …}`).
 */
function asCall(value: Record<string, unknown>): { toolName: string; input: Record<string, unknown> } | undefined {
  const fn = value.function;
  if (isRecord(fn)) return asCall(fn);
  const name = typeof fn === 'string' ? fn : (value.name ?? value.tool);
  if (typeof name !== 'string' || name === '') return undefined;
  const args = value.arguments ?? value.parameters ?? value.args ?? value.input;
  if (args === undefined)
    return { toolName: name, input: Object.fromEntries(Object.entries(value).filter(([key]) => !CALL_KEYS.has(key))) };
  const input = typeof args === 'string' ? parseJson(args) : args;
  return isRecord(input) ? { toolName: name, input } : undefined;
}

/** `"session_id": null`: small models write every optional argument, unset ones as null. */
function withoutNulls(call: Found): Found {
  return { ...call, input: Object.fromEntries(Object.entries(call.input).filter(([, value]) => value !== null)) };
}

/** The text without the calls and the wrappers and invented tool responses around them. */
function leftover(text: string, found: Found[]): string {
  let rest = '';
  let from = 0;
  for (const call of found) {
    if (call.start < from) continue;
    rest += text.slice(from, call.start);
    from = call.end;
  }
  rest += text.slice(from);
  for (const pattern of LEFTOVERS) rest = rest.replace(pattern, '');
  return rest.replace(/\n{3,}/g, '\n\n').trim();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Only empty call wrappers (`<tools></tools>`, `<tool_call>\n</tool_call>`): a small model's way of saying nothing. */
export function isEmptyCallMarkup(text: string): boolean {
  return /^\s*(?:<(tools|tool_call|tool_calls|function_call|function_calls)>\s*<\/\1>\s*)+$/.test(text);
}
