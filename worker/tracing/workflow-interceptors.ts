// Bundled into the traced workflow bundle (see worker/bundle.ts): runs in the workflow sandbox.
// First: OpenTelemetry's SDK reads `performance` when it loads, which the sandbox gets from here.
import '@temporalio/interceptors-opentelemetry/lib/workflow/runtime.js';
import { context, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  extractContextFromHeaders,
  headersWithContext,
  UPDATE_ID_ATTR_KEY,
} from '@temporalio/interceptors-opentelemetry/lib/instrumentation.js';
import { ContextManager } from '@temporalio/interceptors-opentelemetry/lib/workflow/context-manager.js';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter.js';
import {
  ContinueAsNew,
  workflowInfo,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowInternalsInterceptor,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { WORKFLOW_TRACER_KEY, type WorkflowSpan, type WorkflowTracer } from '../../workflows/tracing.js';
import { forgetRun, RunIdGenerator } from './run-ids.js';
import { errorMessage } from '../../core/text/error-message.js';

/*
 * The spans of Temporal's OpenTelemetry interceptors (`RunWorkflow:…`, `StartActivity:…`,
 * `StartChildWorkflow:…`, the same names and the same `_tracer-data` header, so the client's and
 * the activities' spans join them), made so that tracing changes nothing a run does: each
 * interceptor returns the very promise it was given, where the package's own await it, which
 * hands activity results and update replies to the workflow a few microtasks later than an
 * untraced worker would, and reorders their commands (a traced worker could not replay an
 * untraced run's permission replies). Span ids come from the run, not from `Math.random`.
 */

let tracer: Tracer | undefined;
/**
 * Spans of each run not ended yet: a run that ends before an activity it
 * started (a title) ends them too, or they would never leave.
 */
const open = new Map<string, Set<Span>>();

function workflowTracer(): Tracer {
  if (!tracer) {
    const provider = new BasicTracerProvider({ idGenerator: new RunIdGenerator() });
    provider.addSpanProcessor(new SimpleSpanProcessor(new SpanExporter()));
    provider.register({ contextManager: new ContextManager() });
    tracer = provider.getTracer('@temporalio/interceptor-workflow');
  }
  return tracer;
}

/** `fn` inside a span that ends when its promise settles; `fn`'s own promise is returned. */
function inSpan<T>(
  name: string,
  parent: Context,
  fn: (span: WorkflowSpan) => Promise<T>,
  options: { attributes?: Record<string, string | number | boolean>; kind?: SpanKind } = {},
): Promise<T> {
  const span = workflowTracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    parent,
  );
  const { runId } = workflowInfo();
  const spans = open.get(runId) ?? new Set<Span>();
  open.set(runId, spans.add(span));
  let failed = false;
  const handle: WorkflowSpan = {
    setAttribute: (key, value) => void span.setAttribute(key, value),
    fail: (message) => {
      failed = true;
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    },
  };
  let result: Promise<T>;
  try {
    result = context.with(trace.setSpan(parent, span), () => fn(handle));
  } catch (error) {
    endWith(span, error);
    throw error;
  }
  result.then(
    () => end(span),
    (error: unknown) => (failed ? end(span) : endWith(span, error)),
  );
  return result;
}

function endWith(span: Span, error: unknown): void {
  if (!(error instanceof ContinueAsNew)) span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
  end(span);
}

function end(span: Span): void {
  span.end();
  open.get(workflowInfo().runId)?.delete(span);
}

/** The run is over: whatever it started and did not wait for ends with it. */
function endLeftovers(runSpan: Span): void {
  for (const span of open.get(workflowInfo().runId) ?? []) {
    if (span === runSpan) continue;
    span.setAttribute('loom.unfinished', true);
    end(span);
  }
}

const inbound: WorkflowInboundCallsInterceptor = {
  execute: (input, next) =>
    inSpan(
      `RunWorkflow:${workflowInfo().workflowType}`,
      extractContextFromHeaders(input.headers) ?? context.active(),
      () => {
        const run = next(input);
        const runSpan = trace.getActiveSpan()!;
        // Registered before `inSpan` ends the run's span (its own reaction comes after this one).
        run.then(
          () => endLeftovers(runSpan),
          () => endLeftovers(runSpan),
        );
        return run;
      },
    ),
  handleSignal: (input, next) =>
    inSpan(`HandleSignal:${input.signalName}`, extractContextFromHeaders(input.headers) ?? context.active(), () =>
      next(input),
    ),
  handleUpdate: (input, next) =>
    inSpan(
      `HandleUpdate:${input.name}`,
      extractContextFromHeaders(input.headers) ?? context.active(),
      () => next(input),
      { attributes: { [UPDATE_ID_ATTR_KEY]: input.updateId } },
    ),
};

const outbound: WorkflowOutboundCallsInterceptor = {
  scheduleActivity: (input, next) =>
    inSpan(`StartActivity:${input.activityType}`, context.active(), () =>
      next({ ...input, headers: headersWithContext(input.headers) }),
    ),
  scheduleLocalActivity: (input, next) =>
    inSpan(`StartActivity:${input.activityType}`, context.active(), () =>
      next({ ...input, headers: headersWithContext(input.headers) }),
    ),
  startChildWorkflowExecution: (input, next) =>
    inSpan(`StartChildWorkflow:${input.workflowType}`, context.active(), () =>
      next({ ...input, headers: headersWithContext(input.headers) }),
    ),
  signalWorkflow: (input, next) =>
    inSpan(`SignalWorkflow:${input.signalName}`, context.active(), () =>
      next({ ...input, headers: headersWithContext(input.headers) }),
    ),
  continueAsNew: (input, next) =>
    inSpan(`ContinueAsNew:${input.options.workflowType}`, context.active(), () =>
      next({ ...input, headers: headersWithContext(input.headers) }),
    ),
};

const internals: WorkflowInternalsInterceptor = {
  dispose(input, next) {
    forgetRun(workflowInfo().runId);
    open.delete(workflowInfo().runId);
    next(input);
  },
};

/** Loom's own spans in workflow code (`workflows/tracing.ts`). */
const loomTracer: WorkflowTracer = {
  inSpan: (name, attributes, fn) => inSpan(name, context.active(), fn, { attributes }),
};

/** The workflow interceptors of a traced worker. */
export const interceptors = (): WorkflowInterceptors => {
  // Registers the propagator before the first span, whose parent comes from the run's headers.
  workflowTracer();
  (globalThis as Record<string, unknown>)[WORKFLOW_TRACER_KEY] = loomTracer;
  return { inbound: [inbound], outbound: [outbound], internals: [internals] };
};
