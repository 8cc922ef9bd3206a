import type { ClientContext } from '../context.js';
import { devServer } from '../temporal/dev-server.js';

/** `loom down`: stops the background Temporal dev server that `loom run` started. */
export async function downCommand(context: ClientContext): Promise<number> {
  context.report((await devServer('stop', context.env)).trim());
  return 0;
}
