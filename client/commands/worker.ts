import { installQuietRuntime } from '../../worker/runtime.js';
import type { CliContext } from '../context.js';

/** `loom worker`: runs a worker until Ctrl-C or SIGTERM. Start several to scale out. */
export async function workerCommand(context: CliContext): Promise<number> {
  installQuietRuntime('WARN');
  const { address } = await context.temporal();
  await context.ensureWorker(true);
  const { namespace, taskQueue } = context.settings;
  context.report(`Loom worker polling task queue "${taskQueue}" on ${address} (namespace ${namespace}). Ctrl-C stops it.`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  context.report('Stopping the worker …');
  return 0;
}
