// A workflow change for tests of an upgrade: every run of a build bundled with this module starts
// with a one-millisecond timer, a command that Loom's own build never issues, so the build cannot
// replay the histories of runs that started on Loom's own (see test/e2e/upgrade-in-flight.test.ts).
import { sleep, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        await sleep(1);
        return next(input);
      },
    },
  ],
});
