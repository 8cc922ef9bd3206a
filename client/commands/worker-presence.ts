import type { ClientContext } from '../context.js';

/**
 * Runs a worker in this process when none polls the task queue, saying so; true when it did. A
 * command that needs a run to move (a reply, a cancellation) would otherwise wait with nothing said.
 */
export async function startWorkerIfNone(context: ClientContext, why: string): Promise<boolean> {
  if (context.hasInProcessWorker) return false;
  await context.ensureWorker();
  if (!context.hasInProcessWorker) return false;
  context.report(
    `No worker is running on task queue "${context.settings.taskQueue}" and ${why}: running one in this process until it is done ` +
      '(Ctrl-C stops it; `loom worker` keeps one running).',
  );
  return true;
}
