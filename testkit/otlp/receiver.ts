// An OTLP/HTTP trace receiver for tests, in place of an OpenTelemetry Collector: `POST /v1/traces`
// in binary protobuf or OTLP/JSON, gzip or not, answered as the spec says
// (https://opentelemetry.io/docs/specs/otlp/#otlphttp). It keeps every span, normalised, and
// every request, so tests can assert on span trees and on what exporters sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeTraceRequest, encodeStatus, encodeTraceResponse, type Encoding } from './proto.js';
import { receivedSpans, type ReceivedSpan } from './spans.js';
import { renderSpanTree, renderSpanTrees, spanTree, traceIdsOf, type SpanFormat, type SpanNode } from './tree.js';

export { OTLP_SPAN_KIND, OTLP_STATUS_CODE, type ReceivedEvent, type ReceivedLink, type ReceivedSpan } from './spans.js';
export { spanLabel, type SpanFormat, type SpanNode } from './tree.js';

export interface ReceivedRequest {
  method: string;
  /** The URL path, without the query. */
  path: string;
  /** The media type, lowercase and without parameters; '' when the header is absent. */
  contentType: string;
  /** As Node gives them: names lowercase, repeated headers joined with ', '. */
  headers: Record<string, string>;
  accepted: boolean;
  status: number;
  /** Why it was rejected: the message sent back in the `google.rpc.Status`. */
  error?: string;
  spanCount: number;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT`: what `OTEL_EXPORTER_OTLP_ENDPOINT` is set to. */
  url: string;
  spans(): ReceivedSpan[];
  /** Completed requests, accepted or not, in the order they completed. */
  requests(): ReceivedRequest[];
  /**
   * Polls until `predicate` holds (a predicate that throws, e.g. an `expect`, counts as not yet)
   * and returns the spans it held for; on timeout throws with every trace received.
   */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  /** Roots first: spans with no parent, then orphans; children ordered by start time. */
  tree(traceId: string): SpanNode[];
  /** The tree as indented text, one span a line; orphans are marked whatever the format. */
  renderTree(traceId: string, format?: SpanFormat): string;
  renderTrees(format?: SpanFormat): string;
  /** Trace ids in the order they were first seen. */
  traces(): string[];
  clear(): void;
  stop(): Promise<void>;
}

const TRACES_PATH = '/v1/traces';
const CONTENT_TYPES: Record<string, Encoding> = { 'application/x-protobuf': 'protobuf', 'application/json': 'json' };
// The spec's recommended limit, before and after decompression.
const MAX_BODY_BYTES = 20 * 1024 * 1024;

class Rejection extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  let spans: ReceivedSpan[] = [];
  let requests: ReceivedRequest[] = [];

  const server = http.createServer((req, res) => {
    void receive(req).then(({ record, received, status, body, encoding }) => {
      // Spans and their request become visible together, so a test never sees one without the other.
      spans.push(...received);
      requests.push(record);
      res.writeHead(status, {
        'Content-Type': encoding === 'json' ? 'application/json' : 'application/x-protobuf',
        ...(status === 405 ? { Allow: 'POST' } : {}),
      });
      res.end(body);
    });
  });

  async function receive(req: http.IncomingMessage) {
    const method = req.method ?? '';
    const path = new URL(req.url ?? '/', 'http://receiver').pathname;
    const rawType = req.headers['content-type'] ?? '';
    const contentType = rawType.split(';')[0]!.trim().toLowerCase();
    const encoding = CONTENT_TYPES[contentType];
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(', ') : (value ?? ''),
      ]),
    );
    const record: ReceivedRequest = { method, path, contentType, headers, accepted: false, status: 200, spanCount: 0 };
    const answerIn = encoding ?? 'protobuf';
    try {
      // Read the body first, whatever the verdict, so a keep-alive connection stays usable.
      const raw = await readBody(req);
      if (path !== TRACES_PATH)
        throw new Rejection(404, `No OTLP endpoint at ${path}: this receiver takes traces at POST ${TRACES_PATH}`);
      if (method !== 'POST')
        throw new Rejection(405, `${method} ${TRACES_PATH} is not allowed: OTLP/HTTP exports with POST`);
      if (!encoding)
        throw new Rejection(
          415,
          `Content-Type "${rawType}" is not OTLP: send application/x-protobuf or application/json`,
        );
      const received = decode(encoding, inflate(raw, req.headers['content-encoding']));
      Object.assign(record, { accepted: true, spanCount: received.length });
      return { record, received, status: 200, body: encodeTraceResponse(encoding), encoding: answerIn };
    } catch (error) {
      const status = error instanceof Rejection ? error.status : 500;
      const message = error instanceof Rejection ? error.message : `OTLP receiver failed: ${(error as Error).message}`;
      Object.assign(record, { status, error: message });
      return { record, received: [], status, body: encodeStatus(answerIn, message), encoding: answerIn };
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const renderTrees = (format?: SpanFormat) => renderSpanTrees(spans, format);

  return {
    url,
    spans: () => spans.slice(),
    requests: () => requests.slice(),
    async waitFor(predicate, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      let threw: unknown;
      for (;;) {
        const snapshot = spans.slice();
        try {
          if (predicate(snapshot)) return snapshot;
          threw = undefined;
        } catch (error) {
          threw = error;
        }
        if (Date.now() >= deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const lastThrow = threw === undefined ? '' : ` (it last threw: ${(threw as Error).message ?? threw})`;
      const rejected = requests
        .filter((r) => !r.accepted)
        .map((r) => `\n  ${r.status} ${r.method} ${r.path}: ${r.error}`);
      throw new Error(
        `OTLP receiver ${url}: spans did not satisfy the predicate within ${timeoutMs} ms${lastThrow}.\n` +
          `Received ${spans.length} spans:\n${renderTrees()}` +
          (rejected.length ? `\nRejected requests:${rejected.join('')}` : ''),
      );
    },
    tree: (traceId) => spanTree(spans, traceId),
    renderTree: (traceId, format) => renderSpanTree(spanTree(spans, traceId), format),
    renderTrees,
    traces: () => traceIdsOf(spans),
    clear() {
      spans = [];
      requests = [];
    },
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Exporters keep their connections alive; close() alone would wait for them.
      server.closeAllConnections();
      await closed;
    },
  };
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) throw new Rejection(413, `Body of ${size} bytes is over the ${MAX_BODY_BYTES}-byte limit`);
  return Buffer.concat(chunks);
}

function inflate(raw: Buffer, contentEncoding: string | undefined): Buffer {
  const coding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (coding === 'identity' || coding === '') return raw;
  if (coding !== 'gzip')
    throw new Rejection(415, `Content-Encoding "${contentEncoding}" is not supported: send gzip or nothing`);
  try {
    return gunzipSync(raw, { maxOutputLength: MAX_BODY_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new Rejection(413, `Body is over the ${MAX_BODY_BYTES}-byte limit once gunzipped`);
    }
    throw new Rejection(400, `Body is not valid gzip: ${(error as Error).message}`);
  }
}

function decode(encoding: Encoding, body: Buffer): ReceivedSpan[] {
  try {
    return receivedSpans(decodeTraceRequest(body, encoding));
  } catch (error) {
    throw new Rejection(400, `Undecodable ${encoding} ExportTraceServiceRequest: ${(error as Error).message}`);
  }
}
