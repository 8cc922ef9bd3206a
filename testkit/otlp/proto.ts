// The OTLP trace messages, read and written with the protobufjs code that
// @opentelemetry/otlp-transformer generates from the official .proto files: the same code the
// exporters encode with, so the receiver cannot drift from them.
import { createRequire } from 'node:module';
import { parseOtlpJson } from './json.js';

export type Encoding = 'protobuf' | 'json';

/** protobufjs's Long, or what OTLP/JSON leaves before conversion. */
export type Int64 = number | string | { low: number; high: number; unsigned?: boolean };

export interface WireKeyValue {
  key: string;
  value?: WireAnyValue | null;
}

export interface WireAnyValue {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: Int64 | null;
  doubleValue?: number | null;
  arrayValue?: { values?: WireAnyValue[] | null } | null;
  kvlistValue?: { values?: WireKeyValue[] | null } | null;
  bytesValue?: Uint8Array | null;
}

export interface WireSpan {
  traceId?: Uint8Array | null;
  spanId?: Uint8Array | null;
  parentSpanId?: Uint8Array | null;
  name?: string | null;
  kind?: number | null;
  startTimeUnixNano?: Int64 | null;
  endTimeUnixNano?: Int64 | null;
  attributes?: WireKeyValue[] | null;
  events?: { name?: string | null; timeUnixNano?: Int64 | null; attributes?: WireKeyValue[] | null }[] | null;
  links?: { traceId?: Uint8Array | null; spanId?: Uint8Array | null; attributes?: WireKeyValue[] | null }[] | null;
  status?: { code?: number | null; message?: string | null } | null;
}

export interface WireTraceRequest {
  resourceSpans?: {
    resource?: { attributes?: WireKeyValue[] | null } | null;
    scopeSpans?: { scope?: { name?: string | null } | null; spans?: WireSpan[] | null }[] | null;
  }[];
}

interface MessageType<T> {
  decode(bytes: Uint8Array): T;
  fromObject(object: object): T;
  encode(message: T): { finish(): Uint8Array };
  create(): T & { toJSON(): object };
}

interface Writer {
  uint32(value: number): Writer;
  string(value: string): Writer;
  finish(): Uint8Array;
}

const GENERATED_ROOT = '@opentelemetry/otlp-transformer/build/src/generated/root.js';

function loadGenerated() {
  // otlp-transformer is the exporters' dependency, not Loom's: resolve it from where they live.
  const exporter = createRequire(import.meta.url).resolve('@opentelemetry/exporter-trace-otlp-proto');
  let rootPath: string;
  try {
    rootPath = createRequire(exporter).resolve(GENERATED_ROOT);
  } catch (error) {
    throw new Error(`Cannot resolve ${GENERATED_ROOT} from ${exporter}: ${(error as Error).message}`);
  }
  const fromRoot = createRequire(rootPath);
  const root = fromRoot(rootPath);
  const protobuf = fromRoot('protobufjs/minimal');
  // Without Long, protobufjs reads fixed64 as a double and nanosecond timestamps lose precision.
  if (!protobuf.util.Long) throw new Error(`protobufjs beside ${rootPath} found no "long" package`);
  const v1 = root.opentelemetry?.proto?.collector?.trace?.v1;
  if (!v1?.ExportTraceServiceRequest) {
    throw new Error(`${rootPath} has no opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest`);
  }
  return {
    request: v1.ExportTraceServiceRequest as MessageType<WireTraceRequest>,
    response: v1.ExportTraceServiceResponse as MessageType<object>,
    writer: () => protobuf.Writer.create() as Writer,
  };
}

const generated = loadGenerated();

/** Decodes an `ExportTraceServiceRequest`; throws with what is wrong with the body. */
export function decodeTraceRequest(body: Buffer, encoding: Encoding): WireTraceRequest {
  if (encoding === 'protobuf') return generated.request.decode(body);
  return generated.request.fromObject(parseOtlpJson(body.toString('utf8')));
}

/** A full success: an `ExportTraceServiceResponse` with `partial_success` unset, as the spec asks. */
export function encodeTraceResponse(encoding: Encoding): Uint8Array | string {
  const response = generated.response.create();
  return encoding === 'protobuf' ? generated.response.encode(response).finish() : JSON.stringify(response.toJSON());
}

/**
 * The body of a 4xx/5xx: a `google.rpc.Status`. It is not among the generated OTLP types; its
 * `message` is field 2, length-delimited, and the spec lets servers omit `code`.
 */
export function encodeStatus(encoding: Encoding, message: string): Uint8Array | string {
  if (encoding === 'json') return JSON.stringify({ message });
  return generated
    .writer()
    .uint32((2 << 3) | 2)
    .string(message)
    .finish();
}
