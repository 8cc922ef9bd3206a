// Decoded OTLP spans, normalised to plain objects a test can compare: hex ids, bigint
// nanoseconds, attributes as a record.
import type { Int64, WireAnyValue, WireKeyValue, WireSpan, WireTraceRequest } from './proto.js';

/** OTLP's SpanKind: the API's `SpanKind` + 1, because 0 means unspecified on the wire. */
export const OTLP_SPAN_KIND = { UNSPECIFIED: 0, INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;

/** OTLP's StatusCode; the same numbers as the API's `SpanStatusCode`. */
export const OTLP_STATUS_CODE = { UNSET: 0, OK: 1, ERROR: 2 } as const;

export interface ReceivedEvent {
  name: string;
  time: bigint;
  attributes: Record<string, unknown>;
}

export interface ReceivedLink {
  traceId: string;
  spanId: string;
  attributes: Record<string, unknown>;
}

export interface ReceivedSpan {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  /** Absent on a root span. */
  parentSpanId?: string;
  name: string;
  /** See `OTLP_SPAN_KIND`. */
  kind: number;
  /** Nanoseconds since the Unix epoch. */
  start: bigint;
  end: bigint;
  /**
   * Strings, booleans, doubles, ints (a number, or a bigint beyond 2^53), arrays of these,
   * nested records for kvlists, Uint8Array for bytes, null for an empty value.
   */
  attributes: Record<string, unknown>;
  events: ReceivedEvent[];
  links: ReceivedLink[];
  /** `code`: see `OTLP_STATUS_CODE`. */
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
  /** The instrumentation scope's name: the name the tracer was got with. */
  scope: string;
}

/** Every span of a request; throws, naming the span, when an id has the wrong length. */
export function receivedSpans(request: WireTraceRequest): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      const scope = scopeSpans.scope?.name ?? '';
      for (const span of scopeSpans.spans ?? []) spans.push({ ...receivedSpan(span), resource, scope });
    }
  }
  return spans;
}

function receivedSpan(span: WireSpan): Omit<ReceivedSpan, 'resource' | 'scope'> {
  const at = `span "${span.name ?? ''}"`;
  const parentSpanId = hex(span.parentSpanId, [0, 8], `${at} parentSpanId`);
  return {
    traceId: hex(span.traceId, [16], `${at} traceId`),
    spanId: hex(span.spanId, [8], `${at} spanId`),
    ...(parentSpanId ? { parentSpanId } : {}),
    name: span.name ?? '',
    kind: span.kind ?? 0,
    start: nanos(span.startTimeUnixNano),
    end: nanos(span.endTimeUnixNano),
    attributes: attributes(span.attributes),
    events: (span.events ?? []).map((event) => ({
      name: event.name ?? '',
      time: nanos(event.timeUnixNano),
      attributes: attributes(event.attributes),
    })),
    links: (span.links ?? []).map((link) => ({
      traceId: hex(link.traceId, [16], `${at} link traceId`),
      spanId: hex(link.spanId, [8], `${at} link spanId`),
      attributes: attributes(link.attributes),
    })),
    status: { code: span.status?.code ?? 0, ...(span.status?.message ? { message: span.status.message } : {}) },
  };
}

function attributes(list: WireKeyValue[] | null | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, anyValue(value)]));
}

function anyValue(value: WireAnyValue | null | undefined): unknown {
  if (value == null) return null;
  if (value.stringValue != null) return value.stringValue;
  if (value.boolValue != null) return value.boolValue;
  if (value.intValue != null) return int(value.intValue);
  if (value.doubleValue != null) return value.doubleValue;
  if (value.arrayValue != null) return (value.arrayValue.values ?? []).map(anyValue);
  if (value.kvlistValue != null) return attributes(value.kvlistValue.values);
  if (value.bytesValue != null) return Uint8Array.from(value.bytesValue);
  return null;
}

function int(value: Int64): number | bigint {
  const big = toBigInt(value, true);
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

function nanos(value: Int64 | null | undefined): bigint {
  return value == null ? 0n : toBigInt(value, false);
}

function toBigInt(value: Int64, signed: boolean): bigint {
  if (typeof value === 'number' || typeof value === 'string') return BigInt(value);
  const bits = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
  return signed && !value.unsigned ? BigInt.asIntN(64, bits) : bits;
}

function hex(bytes: Uint8Array | null | undefined, lengths: number[], at: string): string {
  const length = bytes?.length ?? 0;
  if (!lengths.includes(length)) throw new Error(`${at} has ${length} bytes, not ${lengths.join(' or ')}`);
  return Buffer.from(bytes ?? []).toString('hex');
}
