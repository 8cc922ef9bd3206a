// OTLP/JSON is proto3's JSON mapping with deviations protobufjs's `fromObject` does not know:
// trace and span ids are hex (it would read them as base64) and enums are integers only. It also
// reads a malformed 64-bit string as 0, so timestamps are checked here.
type Json = Record<string, unknown>;

const HEX = /^(?:[0-9a-f]{2})*$/i;
const UINT64 = /^\d+$/;

/** Parses an OTLP/JSON trace request into an object `fromObject` reads correctly. */
export function parseOtlpJson(text: string): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`body is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(parsed)) throw new Error('body is not a JSON object');
  each(parsed, 'resourceSpans', '', (resourceSpans, at) =>
    each(resourceSpans, 'scopeSpans', at, (scopeSpans, at) => each(scopeSpans, 'spans', at, fixSpan)),
  );
  return parsed;
}

function fixSpan(span: Json, at: string): void {
  for (const field of ['traceId', 'spanId', 'parentSpanId']) hexToBytes(span, field, at);
  integer(span.kind, `${at}.kind`);
  if (isObject(span.status)) integer(span.status.code, `${at}.status.code`);
  timestamp(span.startTimeUnixNano, `${at}.startTimeUnixNano`);
  timestamp(span.endTimeUnixNano, `${at}.endTimeUnixNano`);
  each(span, 'events', at, (event, at) => timestamp(event.timeUnixNano, `${at}.timeUnixNano`));
  each(span, 'links', at, (link, at) => {
    hexToBytes(link, 'traceId', at);
    hexToBytes(link, 'spanId', at);
  });
}

function each(parent: Json, field: string, at: string, visit: (item: Json, at: string) => void): void {
  const list = parent[field];
  const path = at ? `${at}.${field}` : field;
  if (list == null) return;
  if (!Array.isArray(list)) throw new Error(`${path} is not an array`);
  list.forEach((item, index) => {
    if (!isObject(item)) throw new Error(`${path}[${index}] is not an object`);
    visit(item, `${path}[${index}]`);
  });
}

function hexToBytes(holder: Json, field: string, at: string): void {
  const value = holder[field];
  if (value == null) return;
  if (typeof value !== 'string' || !HEX.test(value)) {
    throw new Error(`${at}.${field} is ${JSON.stringify(value)}, not a hex string`);
  }
  holder[field] = Buffer.from(value, 'hex');
}

function integer(value: unknown, at: string): void {
  if (value != null && !Number.isInteger(value)) {
    throw new Error(`${at} is ${JSON.stringify(value)}; OTLP/JSON sends enums as integers`);
  }
}

function timestamp(value: unknown, at: string): void {
  if (value == null) return;
  const ok = typeof value === 'string' ? UINT64.test(value) : Number.isInteger(value) && (value as number) >= 0;
  if (!ok) throw new Error(`${at} is ${JSON.stringify(value)}, not an unsigned 64-bit integer`);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
