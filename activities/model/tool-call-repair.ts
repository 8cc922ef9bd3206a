// Small local models (served by llama.cpp, Ollama, vLLM) often write a tool call into their answer
// instead of sending it as one. This reads the common shapes back as calls: Hermes-style
// `<tool_call>{…}</tool_call>` tags, Qwen's `<function=name><parameter=key>value</parameter>`
// form, a fenced JSON block, or an answer that is nothing but JSON. A call counts only when it
// names an offered tool with arguments that validate; everything else stays text.

export interface RepairedCall {
  toolName: string;
  input: Record<string, unknown>;
  /** The text the call was read from. */
  source: string;
}

export type AcceptsToolCall = (name: string, input: Record<string, unknown>) => boolean;

interface Candidate {
  source: string;
  calls: { toolName: string; input: Record<string, unknown> }[];
}

const TAGGED = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g;
const FENCED = /```[a-zA-Z]*\s*\n?([\s\S]*?)```/g;
const QWEN_FUNCTION = /<function=([\w.-]+)>([\s\S]*?)<\/function>/g;
const QWEN_PARAMETER = /<parameter=([\w.-]+)>\s*([\s\S]*?)\s*<\/parameter>/g;

/** The calls written in `text`, and the text left once they are taken out. */
export function repairTextToolCalls(text: string, accepts: AcceptsToolCall): { calls: RepairedCall[]; text: string } {
  const candidates = [...matchesOf(TAGGED, text), ...matchesOf(FENCED, text)];
  if (candidates.length === 0 && looksLikeJson(text)) candidates.push({ source: text, body: text });
  const calls: RepairedCall[] = [];
  let remaining = text;
  for (const { source, body } of candidates) {
    if (!remaining.includes(source)) continue; // a fence inside a tag already taken
    const candidate = readCandidate(source, body);
    if (!candidate || !candidate.calls.every((call) => accepts(call.toolName, call.input))) continue;
    calls.push(...candidate.calls.map((call) => ({ ...call, source })));
    remaining = remaining.replace(source, '');
  }
  return { calls, text: calls.length > 0 ? remaining.trim() : text };
}

function matchesOf(pattern: RegExp, text: string): { source: string; body: string }[] {
  return [...text.matchAll(pattern)].map((match) => ({ source: match[0], body: match[1] }));
}

function looksLikeJson(text: string): boolean {
  const trimmed = text.trim();
  return (trimmed.startsWith('{') && trimmed.endsWith('}')) || (trimmed.startsWith('[') && trimmed.endsWith(']'));
}

function readCandidate(source: string, body: string): Candidate | undefined {
  const qwen = [...body.matchAll(QWEN_FUNCTION)];
  if (qwen.length > 0) return { source, calls: qwen.map(([, name, params]) => ({ toolName: name, input: qwenParameters(params) })) };
  const parsed = parseJson(body.trim().replace(/^```[a-zA-Z]*\s*|\s*```$/g, ''));
  const objects = Array.isArray(parsed) ? parsed : [parsed];
  const calls = objects.map(asCall);
  if (calls.length === 0 || calls.some((call) => call === undefined)) return undefined;
  return { source, calls: calls as Candidate['calls'] };
}

/** `{name, arguments}`, `{name, parameters}`, `{function: name, arguments}` or `{function: {name, arguments}}`. */
function asCall(value: unknown): Candidate['calls'][number] | undefined {
  if (!isRecord(value)) return undefined;
  const fn = value.function;
  if (isRecord(fn)) return asCall(fn);
  const name = typeof fn === 'string' ? fn : value.name ?? value.tool;
  if (typeof name !== 'string' || name === '') return undefined;
  const args = value.arguments ?? value.parameters ?? value.args ?? value.input ?? {};
  const input = typeof args === 'string' ? parseJson(args) : args;
  return isRecord(input) ? { toolName: name, input } : undefined;
}

/** Qwen's parameters are text; a value that reads as JSON (a number, a list) is taken as such. */
function qwenParameters(params: string): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [, key, value] of params.matchAll(QWEN_PARAMETER)) {
    const parsed = parseJson(value);
    input[key] = parsed === undefined || typeof parsed === 'string' ? value : parsed;
  }
  return input;
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
