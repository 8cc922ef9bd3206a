// Bundled into the workflow code of tests that make a workflow task fail after its local
// activities wrote to the store (what a worker dying at that moment does), to check that the
// task tried again writes the same rows. Runs inside the workflow sandbox.
import type { WorkflowInterceptorsFactory, WorkflowOutboundCallsInterceptor } from '@temporalio/workflow';

/** Set on a local activity's result by the test's activity wrapper: fail this workflow task. */
export const FAIL_TASK_MARK = '__failThisWorkflowTask';

const failAfterMarkedResults: WorkflowOutboundCallsInterceptor = {
  async scheduleLocalActivity(input, next) {
    const result = await next(input);
    if (typeof result === 'object' && result !== null && FAIL_TASK_MARK in result) {
      // Rejected where no workflow code can catch it: the SDK fails the whole task, and the call
      // never returns in this attempt.
      void Promise.reject(
        new Error(
          `Test: the workflow task fails on purpose after local activity ${input.activityType} wrote to the store`,
        ),
      );
      return new Promise(() => undefined);
    }
    return result;
  },
};

export const interceptors: WorkflowInterceptorsFactory = () => ({ outbound: [failAfterMarkedResults] });
