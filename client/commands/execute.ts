import pc from 'picocolors';
import { InputError } from '../input-error.js';
import { exitWhenWritten } from '../process-output.js';
import type { ClientContext } from '../context.js';
import { tracingWanted } from '../../worker/tracing/wanted.js';
import { errorMessage } from '../../core/text/error-message.js';

/** Runs a command's action with a client context: its errors printed, the process ended with its exit code. */
export async function execute(
  action: (context: ClientContext) => Promise<number>,
  options: { report?: (line: string) => void } = {},
): Promise<never> {
  let exitCode = 1;
  let context: ClientContext | undefined;
  try {
    // Each command loads only what it uses, so that `loom --help` and light commands start at once.
    if (tracingWanted()) (await import('../../worker/tracing/setup.js')).startTracing();
    context = await (await import('../context.js')).ClientContext.open(process.env, options.report);
    exitCode = await action(context);
  } catch (error) {
    exitCode = error instanceof InputError ? error.exitCode : 1;
    const message = errorMessage(error);
    process.stderr.write(`${pc.red('Error:')} ${message}\n`);
    if (!(error instanceof InputError) && process.env.LOOM_DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
  } finally {
    await context?.close().catch(() => undefined);
    // What the command traced leaves before it exits.
    if (tracingWanted())
      await (
        await import('../../worker/tracing/setup.js')
      )
        .activeTracing()
        ?.shutdown()
        .catch(() => undefined);
  }
  return exitWhenWritten(exitCode);
}
