/** A call written as markup: its tool's name, its arguments, and where it stands in the text. */
export interface MarkupCall {
  toolName: string;
  /** Values that read as JSON taken as such (`5`, `true`, `[…]`). */
  input: Record<string, unknown>;
  /** Every value as the text it is: for a tool that wants `"12345"`, not `12345`. */
  textInput: Record<string, unknown>;
  start: number;
  end: number;
}

const QWEN_FUNCTION = /<function=([\w.-]+)>([\s\S]*?)<\/function>/g;
const QWEN_PARAMETER = /<parameter=([\w.-]+)>\s*([\s\S]*?)\s*<\/parameter>/g;
const NAMED_FUNCTION =
  /<function>\s*<name>\s*([\w.-]+)\s*<\/name>\s*<(?:arguments|parameters)>([\s\S]*?)<\/(?:arguments|parameters)>\s*<\/function>/g;
/** `<task><description>…</description>…</task>`: an element whose children are all elements. */
const TOOL_ELEMENT = /<([A-Za-z_][\w.-]*)>((?:\s*<([A-Za-z_][\w.-]*)>[\s\S]*?<\/\3>)+\s*)<\/\1>/g;
const LEAF = /<([A-Za-z_][\w.-]*)>([^<]*)<\/\1>/g;
/** A child element that holds elements of its own (`<task_metadata><session_id>…`), not an argument. */
const NESTED = /<([A-Za-z_][\w.-]*)>\s*<[\s\S]*?<\/\1>/g;

/**
 * Calls written as markup: Qwen's `<function=name><parameter=key>value</parameter>`, a
 * `<function><name>…</name><arguments><key>value</key>…` block, and an element named for the tool
 * whose children are its arguments (`<task><prompt>…</prompt>…</task>`). Whether the name is an
 * offered tool is for the caller to check.
 */
export function markupCalls(text: string): MarkupCall[] {
  const calls: MarkupCall[] = [];
  for (const match of text.matchAll(QWEN_FUNCTION))
    calls.push(at(match, match[1], [...match[2].matchAll(QWEN_PARAMETER)]));
  for (const match of text.matchAll(NAMED_FUNCTION)) calls.push(at(match, match[1], leaves(match[2])));
  for (const match of text.matchAll(TOOL_ELEMENT)) {
    if (['function', 'tools', 'tool_call', 'arguments', 'parameters'].includes(match[1])) continue;
    calls.push(at(match, match[1], leaves(match[2])));
  }
  return calls;
}

function at(match: RegExpMatchArray, toolName: string, pairs: string[][]): MarkupCall {
  const textInput = Object.fromEntries(pairs.map(([, key, value]) => [key, unescape(value.trim())]));
  const input = Object.fromEntries(Object.entries(textInput).map(([key, value]) => [key, typed(value)]));
  return { toolName, input, textInput, start: match.index!, end: match.index! + match[0].length };
}

/** The `[whole, key, value]` of an element's own leaf children. */
function leaves(body: string): string[][] {
  return [...body.replace(NESTED, '').matchAll(LEAF)];
}

function unescape(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

/** Markup carries text; a value that reads as JSON (a number, `true`, a list) is taken as such. */
function typed(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'string' ? text : parsed;
  } catch {
    return text;
  }
}
