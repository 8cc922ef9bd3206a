// Bundled into the traced workflow bundle (see worker/bundle.ts): runs in the workflow sandbox.
import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor, type IdGenerator } from '@opentelemetry/sdk-trace-base';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter.js';
import { workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';
import { WORKFLOW_TRACER_KEY, type WorkflowTracer } from '../../workflows/tracing.js';

/** Span and trace ids drawn so far by each run in this worker (reset when the run leaves the cache). */
const drawn = new Map<string, number>();

/**
 * Ids that take no randomness from the workflow: the SDK's own generator draws on `Math.random`,
 * which Loom's workflows also draw their ids from, so a run traced on one worker and replayed on an
 * untraced one would draw other message and session ids. These come from the run id and a count.
 */
class RunIdGenerator implements IdGenerator {
  generateTraceId(): string {
    return this.next(4);
  }

  generateSpanId(): string {
    return this.next(2);
  }

  private next(words: number): string {
    const { runId } = workflowInfo();
    const count = (drawn.get(runId) ?? 0) + 1;
    drawn.set(runId, count);
    let id = '';
    for (let word = 0; word < words; word++) id += fnv1a(`${runId}:${count}:${word}`).toString(16).padStart(8, '0');
    return id;
  }
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

let tracer: Tracer | undefined;

function loomTracer(): Tracer {
  if (!tracer) {
    const provider = new BasicTracerProvider({ idGenerator: new RunIdGenerator() });
    provider.addSpanProcessor(new SimpleSpanProcessor(new SpanExporter()));
    tracer = provider.getTracer('loom-workflow');
  }
  return tracer;
}

class InboundInterceptor extends OpenTelemetryInboundInterceptor {
  protected override readonly tracer = loomTracer();
}

class OutboundInterceptor extends OpenTelemetryOutboundInterceptor {
  protected override readonly tracer = loomTracer();
}

class InternalsInterceptor extends OpenTelemetryInternalsInterceptor {
  override async dispose(input: Parameters<OpenTelemetryInternalsInterceptor['dispose']>[0], next: Parameters<OpenTelemetryInternalsInterceptor['dispose']>[1]): Promise<void> {
    drawn.delete(workflowInfo().runId);
    await super.dispose(input, next);
  }
}

/** Loom's spans in workflow code (`workflows/tracing.ts`): the span is `fn`'s, which keeps its own promise. */
const workflowTracer: WorkflowTracer = {
  inSpan(name, attributes, fn) {
    return loomTracer().startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, (span) => {
      let failed = false;
      const handle = {
        setAttribute: (key: string, value: string | number | boolean) => void span.setAttribute(key, value),
        fail: (message: string) => {
          failed = true;
          span.setStatus({ code: SpanStatusCode.ERROR, message });
        },
      };
      const result = fn(handle);
      result.then(
        () => span.end(),
        (error: unknown) => {
          if (!failed) span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
          span.end();
        },
      );
      return result;
    });
  },
};

/** The workflow interceptors of a traced worker: Temporal's OpenTelemetry ones, with Loom's ids. */
export const interceptors = (): WorkflowInterceptors => {
  (globalThis as Record<string, unknown>)[WORKFLOW_TRACER_KEY] = workflowTracer;
  return {
    inbound: [new InboundInterceptor()],
    outbound: [new OutboundInterceptor()],
    internals: [new InternalsInterceptor()],
  };
};
