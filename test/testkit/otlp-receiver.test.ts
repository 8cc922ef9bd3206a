// The OTLP receiver, fed by the real exporters (binary protobuf and JSON) through the real SDK, and
// by hand where the exporters would never send what a test needs.
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OTLP_SPAN_KIND, OTLP_STATUS_CODE, startOtlpReceiver, type OtlpReceiver } from '../../testkit/otlp/receiver.js';

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.stop();
});

const BASE_MS = Date.UTC(2025, 0, 1);
const at = (ms: number) => new Date(BASE_MS + ms);
const nanosAt = (ms: number) => BigInt(BASE_MS + ms) * 1_000_000n;

const rootAttributes = {
  'loom.session': 'ses_1',
  'loom.steps': 3,
  'loom.cost': 0.25,
  'loom.child': false,
  'loom.tools': ['read', 'glob'],
  'loom.sizes': [1, 2, 3],
  'loom.ratios': [0.5, 1.5],
  'loom.flags': [true, false],
};

/** A session span, a step with a tool call under it, and a model call that failed once. */
async function exportTree(processor: SpanProcessor): Promise<string> {
  const resource = new Resource({ 'service.name': 'loom-selfcheck' });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  const tracer = provider.getTracer('loom.selfcheck', '1.0.0');
  const root = tracer.startSpan('session', { kind: SpanKind.SERVER, startTime: at(0), attributes: rootAttributes });
  const inRoot = trace.setSpan(context.active(), root);
  const step = tracer.startSpan('step', { startTime: at(1) }, inRoot);
  const tool = tracer.startSpan(
    'tool.read',
    { kind: SpanKind.CLIENT, startTime: at(2) },
    trace.setSpan(context.active(), step),
  );
  tool.end(at(3));
  step.end(at(4));
  const model = tracer.startSpan('model.call', { startTime: at(5) }, inRoot);
  model.addEvent('retry', { attempt: 2, reason: 'rate limited' }, at(6));
  model.setStatus({ code: SpanStatusCode.ERROR, message: 'overloaded' });
  model.end(at(7));
  root.end(at(10));
  await provider.forceFlush();
  await provider.shutdown();
  return root.spanContext().traceId;
}

async function expectTree(traceId: string) {
  await receiver.waitFor((spans) => spans.length === 4);
  expect(receiver.traces()).toEqual([traceId]);
  expect(receiver.renderTree(traceId)).toBe(
    ['session', '  step', '    tool.read', '  model.call (error: overloaded)'].join('\n'),
  );

  const [root, ...others] = receiver.tree(traceId);
  expect(others).toEqual([]);
  expect(root).toMatchObject({
    traceId,
    name: 'session',
    kind: OTLP_SPAN_KIND.SERVER,
    orphan: false,
    scope: 'loom.selfcheck',
  });
  expect(root.parentSpanId).toBeUndefined();
  expect([root.start, root.end]).toEqual([nanosAt(0), nanosAt(10)]);
  expect(root.attributes).toEqual(rootAttributes);
  expect(root.resource).toMatchObject({ 'service.name': 'loom-selfcheck', 'telemetry.sdk.language': 'nodejs' });
  expect(root.status).toEqual({ code: OTLP_STATUS_CODE.UNSET });

  const [step, model] = root.children;
  const [tool] = step.children;
  expect(step).toMatchObject({ parentSpanId: root.spanId, kind: OTLP_SPAN_KIND.INTERNAL, attributes: {} });
  expect(tool).toMatchObject({
    parentSpanId: step.spanId,
    kind: OTLP_SPAN_KIND.CLIENT,
    start: nanosAt(2),
    end: nanosAt(3),
  });
  expect(model.status).toEqual({ code: OTLP_STATUS_CODE.ERROR, message: 'overloaded' });
  expect(model.events).toEqual([
    { name: 'retry', time: nanosAt(6), attributes: { attempt: 2, reason: 'rate limited' } },
  ]);
  for (const span of receiver.spans()) {
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
  }
}

/** Builds with only these variables set: the exporters read them at construction. */
function constructedWithEnv<T>(env: Record<string, string | undefined>, create: () => T): T {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(env);
  try {
    return create();
  } finally {
    apply(saved);
  }
}

const exporters: { name: string; contentType: string; create: (config?: { url: string }) => SpanExporter }[] = [
  { name: 'protobuf', contentType: 'application/x-protobuf', create: (config) => new ProtoTraceExporter(config) },
  { name: 'JSON', contentType: 'application/json', create: (config) => new JsonTraceExporter(config) },
];

describe.each(exporters)('the $name exporter', ({ contentType, create }) => {
  it('delivers a span tree with its attributes, events, status and resource', async () => {
    const traceId = await exportTree(new SimpleSpanProcessor(create({ url: `${receiver.url}/v1/traces` })));
    await expectTree(traceId);
    expect(receiver.requests().length).toBe(4);
    for (const request of receiver.requests()) {
      expect(request).toMatchObject({
        method: 'POST',
        path: '/v1/traces',
        contentType,
        accepted: true,
        status: 200,
        spanCount: 1,
      });
      expect(request.headers['user-agent']).toMatch(/^OTel-OTLP-Exporter-JavaScript\//);
      expect(request.headers['content-encoding']).toBeUndefined();
    }
  });

  it('is configured by OTEL_EXPORTER_OTLP_ENDPOINT and _HEADERS, and gzips when told', async () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20loom-token,x-loom-run=selfcheck',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: undefined,
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: undefined,
    };
    const exporter = constructedWithEnv(env, () => create());
    await expectTree(await exportTree(new BatchSpanProcessor(exporter)));
    expect(receiver.requests().length).toBeGreaterThan(0);
    for (const request of receiver.requests()) {
      expect(request).toMatchObject({ path: '/v1/traces', contentType, accepted: true });
      expect(request.headers).toMatchObject({
        authorization: 'Bearer loom-token',
        'x-loom-run': 'selfcheck',
        'content-encoding': 'gzip',
      });
    }
  });
});

const TRACE_ID = '5B8EFFF798038103D269B633813FC60C';

/** OTLP/JSON as the spec writes it, with what the JS exporter never sends. */
function handWrittenRequest(span: Record<string, unknown> = {}) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'by-hand' } }] },
        scopeSpans: [
          {
            scope: { name: 'manual' },
            spans: [
              {
                traceId: TRACE_ID,
                spanId: 'EEE19B7EC3C1B174',
                parentSpanId: 'EEE19B7EC3C1B173',
                name: 'lost child',
                kind: 3,
                startTimeUnixNano: '1544712660000000000',
                endTimeUnixNano: '1544712661000000000',
                attributes: [
                  { key: 'big', value: { intValue: '9007199254740993' } },
                  { key: 'small', value: { intValue: '-42' } },
                  {
                    key: 'nested',
                    value: { kvlistValue: { values: [{ key: 'inner', value: { doubleValue: 1.5 } }] } },
                  },
                ],
                events: [{ name: 'tick', timeUnixNano: 1000 }],
                status: { code: 2, message: 'parent lost' },
                notAnOtlpField: 'ignored',
                ...span,
              },
            ],
          },
        ],
      },
    ],
  };
}

async function post(path: string, body: string | Buffer | undefined, headers: Record<string, string>, method = 'POST') {
  const response = await fetch(`${receiver.url}${path}`, { method, body: body as BodyInit | undefined, headers });
  return {
    status: response.status,
    headers: response.headers,
    text: Buffer.from(await response.arrayBuffer()).toString('utf8'),
  };
}

describe('OTLP/JSON by hand', () => {
  it('reads hex ids in any case, integer enums and 64-bit ints as strings or numbers, gzipped', async () => {
    const body = gzipSync(JSON.stringify(handWrittenRequest()));
    const response = await post('/v1/traces', body, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Encoding': 'gzip',
    });
    expect(response).toMatchObject({ status: 200, text: '{}' });
    expect(response.headers.get('content-type')).toBe('application/json');

    const [span] = receiver.tree(TRACE_ID);
    expect(span).toMatchObject({
      traceId: TRACE_ID.toLowerCase(),
      spanId: 'eee19b7ec3c1b174',
      orphan: true,
      kind: OTLP_SPAN_KIND.CLIENT,
    });
    expect([span.start, span.end, span.events[0].time]).toEqual([1544712660000000000n, 1544712661000000000n, 1000n]);
    expect(span.attributes).toEqual({ big: 9007199254740993n, small: -42, nested: { inner: 1.5 } });
    expect(span.resource).toEqual({ 'service.name': 'by-hand' });
    expect(receiver.renderTree(TRACE_ID)).toBe(
      'lost child (error: parent lost) (orphan: parent eee19b7ec3c1b173 not received)',
    );
  });

  it('times out waiting with the trees it has and the requests it rejected', async () => {
    await post('/v1/traces', JSON.stringify(handWrittenRequest()), { 'Content-Type': 'application/json' });
    await post('/v1/traces', 'x', { 'Content-Type': 'text/plain' });
    const waiting = receiver.waitFor((spans) => spans.length > 1, 100);
    await expect(waiting).rejects.toThrow(/within 100 ms[\s\S]*lost child[\s\S]*415 POST \/v1\/traces/);
  });
});

describe('what is not OTLP', () => {
  it('is rejected with the status the spec gives, and recorded', async () => {
    const protobuf = { 'Content-Type': 'application/x-protobuf' };
    const json = { 'Content-Type': 'application/json' };
    const cases = [
      {
        path: '/v1/traces',
        body: Buffer.from([0x0a, 0xff]),
        headers: protobuf,
        status: 400,
        says: 'Undecodable protobuf',
      },
      { path: '/v1/traces', body: '{"resourceSpans": [', headers: json, status: 400, says: 'body is not JSON' },
      {
        path: '/v1/traces',
        body: JSON.stringify(handWrittenRequest({ spanId: 'not-hex' })),
        headers: json,
        status: 400,
        says: 'spans[0].spanId is "not-hex"',
      },
      {
        path: '/v1/traces',
        body: JSON.stringify(handWrittenRequest({ kind: 'SPAN_KIND_CLIENT' })),
        headers: json,
        status: 400,
        says: 'enums as integers',
      },
      {
        path: '/v1/traces',
        body: JSON.stringify(handWrittenRequest({ traceId: 'abcd' })),
        headers: json,
        status: 400,
        says: 'traceId has 2 bytes, not 16',
      },
      {
        path: '/v1/traces',
        body: '{}',
        headers: { ...json, 'Content-Encoding': 'gzip' },
        status: 400,
        says: 'not valid gzip',
      },
      {
        path: '/v1/traces',
        body: '{}',
        headers: { ...json, 'Content-Encoding': 'br' },
        status: 415,
        says: 'Content-Encoding "br"',
      },
      {
        path: '/v1/traces',
        body: 'spans',
        headers: { 'Content-Type': 'text/plain' },
        status: 415,
        says: 'Content-Type "text/plain"',
      },
      { path: '/v1/metrics', body: '{}', headers: json, status: 404, says: 'No OTLP endpoint at /v1/metrics' },
    ];
    for (const { path, body, headers, status, says } of cases) {
      const response = await post(path, body, headers);
      const message =
        response.headers.get('content-type') === 'application/json' ? JSON.parse(response.text).message : response.text;
      expect({ status: response.status, says: message.includes(says) }, message).toEqual({ status, says: true });
    }
    const get = await post('/v1/traces', undefined, {}, 'GET');
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);

    expect(receiver.spans()).toEqual([]);
    expect(receiver.requests().map((r) => [r.accepted, r.status])).toEqual([
      ...cases.map((c) => [false, c.status]),
      [false, 405],
    ]);
    expect(receiver.requests()[2].error).toContain('resourceSpans[0].scopeSpans[0].spans[0].spanId');
  });

  it('answers a bad protobuf body with a binary google.rpc.Status and a JSON one in JSON', async () => {
    const binary = await post('/v1/traces', Buffer.from([0x0a, 0xff]), { 'Content-Type': 'application/x-protobuf' });
    expect(binary.headers.get('content-type')).toBe('application/x-protobuf');
    expect(binary.text.charCodeAt(0)).toBe((2 << 3) | 2);
    const json = await post('/v1/traces', 'nope', { 'Content-Type': 'application/json' });
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(json.text).message).toMatch(/^Undecodable json ExportTraceServiceRequest: body is not JSON/);
  });
});
