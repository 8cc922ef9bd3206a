import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import type { InjectedSinks, WorkerOptions } from '@temporalio/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import type { Tracing } from './setup.js';

/**
 * What a traced worker adds: spans around activities, the context passed on by
 * the activities' client, and the sink the workflow spans leave by.
 */
export function tracedWorkerOptions(tracing: Tracing): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const exporter = makeWorkflowExporter(tracing.spanProcessor, tracing.resource);
  const sinks: InjectedSinks<OpenTelemetrySinks> = {
    exporter: {
      export: {
        // The SDK would copy the whole workflow info (memo, search attributes, last failure) onto each span:
        // only the run's ids are kept, named as the client's spans name them.
        fn: (info, spans) =>
          exporter.export.fn(
            {
              temporalWorkflowId: info.workflowId,
              run_id: info.runId,
              temporalWorkflowType: info.workflowType,
            } as unknown as typeof info,
            spans,
          ),
      },
    },
  };
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
      client: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    },
    sinks: sinks as WorkerOptions['sinks'],
  };
}
