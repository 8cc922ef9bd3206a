import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { detectResourcesSync, envDetectorSync, Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createRequire } from 'node:module';
import { LOOM_VERSION } from '../../activities/process/package-root.js';

/** This process's tracing: where spans go, and what a worker needs to trace workflows too. */
export interface Tracing {
  resource: Resource;
  spanProcessor: SpanProcessor;
  /** Sends what is buffered, then stops: the CLI calls it before it exits. */
  shutdown(): Promise<void>;
}

export class TracingConfigError extends Error {
  override name = 'TracingConfigError';
}

let current: Tracing | undefined | null = null;

/**
 * OpenTelemetry for this process, from the standard variables: on when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, off otherwise or
 * with `OTEL_SDK_DISABLED=true` / `OTEL_TRACES_EXPORTER=none`. Spans go over OTLP/HTTP, protobuf
 * unless `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL` is `http/json`; the exporter reads the endpoint,
 * headers, timeout and compression variables itself. Set up once per process.
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  if (current !== null) return current;
  const exporter = traceExporter(env);
  current = undefined;
  if (!exporter) return undefined;
  const reportFailure = reportExportFailures(
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT!,
  );
  const resource = new Resource({ 'service.name': 'loom', 'service.version': LOOM_VERSION }).merge(
    detectResourcesSync({ detectors: [envDetectorSync] }),
  );
  const spanProcessor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1_000 });
  const provider = new BasicTracerProvider({ resource });
  provider.addSpanProcessor(spanProcessor);
  provider.register({
    contextManager: new AsyncLocalStorageContextManager(),
    propagator: new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  });
  current = {
    resource,
    spanProcessor,
    shutdown: async () => {
      await provider.shutdown().catch((error: unknown) => reportFailure(error));
      trace.disable();
      context.disable();
      propagation.disable();
      diag.disable();
      current = null;
    },
  };
  return current;
}

/** The tracing `startTracing` set up, if it is on. */
export function activeTracing(): Tracing | undefined {
  return current ?? undefined;
}

const PROTOCOLS = ['http/protobuf', 'http/json'];
const SAY_AGAIN_AFTER_MS = 60_000;

/**
 * A collector out of reach loses spans, not runs: said on stderr, at most once a minute, instead of
 * OpenTelemetry's silence (its exporters report failures only to a diagnostic logger).
 */
function reportExportFailures(endpoint: string): (error: unknown) => void {
  let saidAt = -Infinity;
  const say = (error: unknown) => {
    if (Date.now() - saidAt < SAY_AGAIN_AFTER_MS) return;
    saidAt = Date.now();
    process.stderr.write(
      `warning: Cannot send traces to ${endpoint}: ${reason(error)} (spans are dropped until it answers).\n`,
    );
  };
  const ignore = () => undefined;
  diag.setLogger(
    {
      error: (message, ...args) => say(args[0] ?? message),
      warn: ignore,
      info: ignore,
      debug: ignore,
      verbose: ignore,
    },
    DiagLogLevel.ERROR,
  );
  return say;
}

/** OpenTelemetry's error handler hands on errors as JSON text; the message is what a person reads. */
function reason(error: unknown): string {
  if (error instanceof Error) return error.message;
  const text = String(error);
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // Not JSON: the text itself.
  }
  return text.split('\n')[0]!;
}

function traceExporter(env: NodeJS.ProcessEnv): SpanExporter | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporters === 'none') return undefined;
  if (exporters && exporters !== 'otlp')
    throw new TracingConfigError(
      `OTEL_TRACES_EXPORTER is "${exporters}": Loom sends traces with OTLP only ("otlp", or "none" for no traces).`,
    );
  const endpointVariable = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
    : env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? 'OTEL_EXPORTER_OTLP_ENDPOINT'
      : undefined;
  if (!endpointVariable) return undefined;
  const endpoint = env[endpointVariable]!;
  if (!/^https?:\/\/[^\s/]+/.test(endpoint)) {
    throw new TracingConfigError(
      `${endpointVariable} is "${endpoint}": give the collector's OTLP/HTTP address, such as http://localhost:4318.`,
    );
  }
  const protocolVariable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[protocolVariable]?.trim() || 'http/protobuf';
  if (!PROTOCOLS.includes(protocol)) {
    throw new TracingConfigError(
      `${protocolVariable} is "${protocol}": Loom sends traces over OTLP/HTTP (${PROTOCOLS.join(' or ')}); point ${endpointVariable} at the collector's HTTP port (usually 4318).`,
    );
  }
  // The exporters read their variables from process.env when they are made.
  const require = createRequire(import.meta.url);
  const { OTLPTraceExporter } = require(
    protocol === 'http/json' ? '@opentelemetry/exporter-trace-otlp-http' : '@opentelemetry/exporter-trace-otlp-proto',
  ) as {
    OTLPTraceExporter: new () => SpanExporter;
  };
  return new OTLPTraceExporter();
}
