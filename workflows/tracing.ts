/**
 * Spans around pieces of workflow code (a `task` call and the subagent it runs), made by the
 * tracing interceptors when the worker traces (`worker/tracing/workflow-interceptors.ts`, in the
 * traced workflow bundle only); otherwise the code just runs. A span never changes what the
 * workflow does: `fn`'s own promise is returned, so nothing awaits a moment later than untraced.
 */
export interface WorkflowSpan {
  setAttribute(key: string, value: string | number | boolean): void;
  /** Marks the span failed, with what the model or person is told. */
  fail(message: string): void;
}

export interface WorkflowTracer {
  inSpan<T>(
    name: string,
    attributes: Record<string, string | number | boolean>,
    fn: (span: WorkflowSpan) => Promise<T>,
  ): Promise<T>;
}

/** Where the interceptors put the tracer, on each workflow's global object. */
export const WORKFLOW_TRACER_KEY = '__loomWorkflowTracer';

const NO_SPAN: WorkflowSpan = { setAttribute: () => undefined, fail: () => undefined };

export function inWorkflowSpan<T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  fn: (span: WorkflowSpan) => Promise<T>,
): Promise<T> {
  const tracer = (globalThis as { [WORKFLOW_TRACER_KEY]?: WorkflowTracer })[WORKFLOW_TRACER_KEY];
  return tracer ? tracer.inSpan(name, attributes, fn) : fn(NO_SPAN);
}
